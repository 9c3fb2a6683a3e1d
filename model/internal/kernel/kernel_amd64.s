//go:build amd64

#include "textflag.h"

// kernelAVX2 is the AVX2/FMA form of kernelGo (kernel.go), which documents
// the arguments. Y0..Y11 hold the 6x16 tile (row i in Y(2i), Y(2i+1));
// Y12, Y13 a row of the packed B; Y14, Y15 the broadcast A values, two
// so that consecutive rows do not wait on one register. The six A rows
// are addressed from SI (rows 0-3, strides R8 = lda*4 and R9 = 3*lda*4)
// and DI (rows 4-5).

// ZEROTILE zeroes the tile's registers Y0..Y11.
#define ZEROTILE \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11

// ADDTILE adds to the tile the 6x16 values at rows p, p+BX, p+2*BX,
// p+R9 (= p+3*BX), q (= p+4*BX) and q+BX.
#define ADDTILE(p, q) \
	VADDPS (p), Y0, Y0; \
	VADDPS 32(p), Y1, Y1; \
	VADDPS (p)(BX*1), Y2, Y2; \
	VADDPS 32(p)(BX*1), Y3, Y3; \
	VADDPS (p)(BX*2), Y4, Y4; \
	VADDPS 32(p)(BX*2), Y5, Y5; \
	VADDPS (p)(R9*1), Y6, Y6; \
	VADDPS 32(p)(R9*1), Y7, Y7; \
	VADDPS (q), Y8, Y8; \
	VADDPS 32(q), Y9, Y9; \
	VADDPS (q)(BX*1), Y10, Y10; \
	VADDPS 32(q)(BX*1), Y11, Y11

// ADDTILE512 adds to the 6x32 tile of kernelAVX512 the values at rows p,
// p+BX, p+2*BX, p+R9, q and q+BX, as ADDTILE.
#define ADDTILE512(p, q) \
	VADDPS (p), Z0, Z0; \
	VADDPS 64(p), Z1, Z1; \
	VADDPS (p)(BX*1), Z2, Z2; \
	VADDPS 64(p)(BX*1), Z3, Z3; \
	VADDPS (p)(BX*2), Z4, Z4; \
	VADDPS 64(p)(BX*2), Z5, Z5; \
	VADDPS (p)(R9*1), Z6, Z6; \
	VADDPS 64(p)(R9*1), Z7, Z7; \
	VADDPS (q), Z8, Z8; \
	VADDPS 64(q), Z9, Z9; \
	VADDPS (q)(BX*1), Z10, Z10; \
	VADDPS 64(q)(BX*1), Z11, Z11

// FLUSHSUBNORMALS saves MXCSR in the frame's 8 bytes and sets its
// flush-to-zero and denormals-are-zero bits: subnormal operands are read as
// 0 and subnormal results stored as 0, as an Intel core otherwise computes
// each through a microcode assist tens of times slower, and a trained
// network's tiny weights and gradients make them common. RESTOREMXCSR
// puts the caller's MXCSR back before the kernel returns, so no Go code
// ever runs with the bits set (assembly is never preempted asynchronously).
#define FLUSHSUBNORMALS \
	STMXCSR mxcsr-8(SP); \
	MOVL mxcsr-8(SP), CX; \
	ORL $0x8040, CX; \
	MOVL CX, mxcsr-4(SP); \
	LDMXCSR mxcsr-4(SP)

#define RESTOREMXCSR LDMXCSR mxcsr-8(SP)

// func kernelAVX2(a *float32, offs *int, ntaps int, k int, lda int, b *float32, c *float32, ldc int, bias *float32, res *float32, flags int)
TEXT ·kernelAVX2(SB), NOSPLIT, $8-88
	FLUSHSUBNORMALS
	MOVQ a+0(FP), AX
	MOVQ offs+8(FP), BX
	MOVQ ntaps+16(FP), CX
	MOVQ k+24(FP), DX
	MOVQ lda+32(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	MOVQ b+40(FP), R10
	ZEROTILE
	TESTQ DX, DX
	JZ epilogue
	TESTQ CX, CX
	JZ epilogue
tap:
	MOVQ (BX), SI
	LEAQ (AX)(SI*4), SI
	LEAQ (SI)(R8*4), DI
	MOVQ DX, R11
kloop:
	VMOVUPS (R10), Y12
	VMOVUPS 32(R10), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (SI)(R8*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (SI)(R8*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (SI)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (DI), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (DI)(R8*1), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $4, SI
	ADDQ $4, DI
	ADDQ $64, R10
	DECQ R11
	JNZ kloop
	ADDQ $8, BX
	DECQ CX
	JNZ tap
epilogue:
	MOVQ c+48(FP), AX
	MOVQ ldc+56(FP), BX
	SHLQ $2, BX
	LEAQ (BX)(BX*2), R9
	LEAQ (AX)(BX*4), R11
	MOVQ bias+64(FP), CX
	MOVQ res+72(FP), DX
	MOVQ flags+80(FP), SI
	TESTQ $1, SI
	JZ noacc
	ADDTILE(AX, R11)
noacc:
	TESTQ CX, CX
	JZ nobias
	VMOVUPS (CX), Y12
	VMOVUPS 32(CX), Y13
	VADDPS Y12, Y0, Y0
	VADDPS Y13, Y1, Y1
	VADDPS Y12, Y2, Y2
	VADDPS Y13, Y3, Y3
	VADDPS Y12, Y4, Y4
	VADDPS Y13, Y5, Y5
	VADDPS Y12, Y6, Y6
	VADDPS Y13, Y7, Y7
	VADDPS Y12, Y8, Y8
	VADDPS Y13, Y9, Y9
	VADDPS Y12, Y10, Y10
	VADDPS Y13, Y11, Y11
nobias:
	TESTQ DX, DX
	JZ nores
	LEAQ (DX)(BX*4), R12
	ADDTILE(DX, R12)
nores:
	TESTQ $2, SI
	JZ store
	// max(x, 0) with x second: a NaN stays NaN, as in Go's max, so that a
	// diverged network is detected.
	VXORPS Y14, Y14, Y14
	VMAXPS Y0, Y14, Y0
	VMAXPS Y1, Y14, Y1
	VMAXPS Y2, Y14, Y2
	VMAXPS Y3, Y14, Y3
	VMAXPS Y4, Y14, Y4
	VMAXPS Y5, Y14, Y5
	VMAXPS Y6, Y14, Y6
	VMAXPS Y7, Y14, Y7
	VMAXPS Y8, Y14, Y8
	VMAXPS Y9, Y14, Y9
	VMAXPS Y10, Y14, Y10
	VMAXPS Y11, Y14, Y11
store:
	VMOVUPS Y0, (AX)
	VMOVUPS Y1, 32(AX)
	VMOVUPS Y2, (AX)(BX*1)
	VMOVUPS Y3, 32(AX)(BX*1)
	VMOVUPS Y4, (AX)(BX*2)
	VMOVUPS Y5, 32(AX)(BX*2)
	VMOVUPS Y6, (AX)(R9*1)
	VMOVUPS Y7, 32(AX)(R9*1)
	VMOVUPS Y8, (R11)
	VMOVUPS Y9, 32(R11)
	VMOVUPS Y10, (R11)(BX*1)
	VMOVUPS Y11, 32(R11)(BX*1)
	RESTOREMXCSR
	VZEROUPPER
	RET

// kernelAVX512 is kernelAVX2 on two adjacent tiles at once, a 6x32 tile in
// AVX-512 registers: the second tile's packed B is bstep values after the
// first's, and its columns of c, bias and res are the next 16. Z0..Z11
// hold the tile (row i in Z(2i) for the first 16 columns, Z(2i+1) for
// the next 16); Z12, Z13 a row of each packed B; Z14, Z15 the broadcast A
// values. Each output is the same chain of fused multiply-adds as in
// kernelAVX2, so the two agree bit for bit. It computes tiles such tiles
// down the matrix, the i-th reading a from i*astep values on and writing
// c and res from i*cstep on: after each one it advances its own
// arguments a, c and res and starts again.
//
// func kernelAVX512(a *float32, offs *int, ntaps int, k int, lda int, b *float32, bstep int, c *float32, ldc int, bias *float32, res *float32, flags int, tiles int, astep int, cstep int)
TEXT ·kernelAVX512(SB), NOSPLIT, $8-120
	FLUSHSUBNORMALS
wtile:
	MOVQ a+0(FP), AX
	MOVQ offs+8(FP), BX
	MOVQ ntaps+16(FP), CX
	MOVQ k+24(FP), DX
	MOVQ lda+32(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	MOVQ b+40(FP), R10
	MOVQ bstep+48(FP), R13
	SHLQ $2, R13
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	VXORPS Z8, Z8, Z8
	VXORPS Z9, Z9, Z9
	VXORPS Z10, Z10, Z10
	VXORPS Z11, Z11, Z11
	TESTQ DX, DX
	JZ wepilogue
	TESTQ CX, CX
	JZ wepilogue
wtap:
	MOVQ (BX), SI
	LEAQ (AX)(SI*4), SI
	LEAQ (SI)(R8*4), DI
	MOVQ DX, R11
wkloop:
	VMOVUPS (R10), Z12
	VMOVUPS (R10)(R13*1), Z13
	VBROADCASTSS (SI), Z14
	VFMADD231PS Z12, Z14, Z0
	VFMADD231PS Z13, Z14, Z1
	VBROADCASTSS (SI)(R8*1), Z15
	VFMADD231PS Z12, Z15, Z2
	VFMADD231PS Z13, Z15, Z3
	VBROADCASTSS (SI)(R8*2), Z14
	VFMADD231PS Z12, Z14, Z4
	VFMADD231PS Z13, Z14, Z5
	VBROADCASTSS (SI)(R9*1), Z15
	VFMADD231PS Z12, Z15, Z6
	VFMADD231PS Z13, Z15, Z7
	VBROADCASTSS (DI), Z14
	VFMADD231PS Z12, Z14, Z8
	VFMADD231PS Z13, Z14, Z9
	VBROADCASTSS (DI)(R8*1), Z15
	VFMADD231PS Z12, Z15, Z10
	VFMADD231PS Z13, Z15, Z11
	ADDQ $4, SI
	ADDQ $4, DI
	ADDQ $64, R10
	DECQ R11
	JNZ wkloop
	ADDQ $8, BX
	DECQ CX
	JNZ wtap
wepilogue:
	MOVQ c+56(FP), AX
	MOVQ ldc+64(FP), BX
	SHLQ $2, BX
	LEAQ (BX)(BX*2), R9
	LEAQ (AX)(BX*4), R11
	MOVQ bias+72(FP), CX
	MOVQ res+80(FP), DX
	MOVQ flags+88(FP), SI
	TESTQ $1, SI
	JZ wnoacc
	ADDTILE512(AX, R11)
wnoacc:
	TESTQ CX, CX
	JZ wnobias
	VMOVUPS (CX), Z12
	VMOVUPS 64(CX), Z13
	VADDPS Z12, Z0, Z0
	VADDPS Z13, Z1, Z1
	VADDPS Z12, Z2, Z2
	VADDPS Z13, Z3, Z3
	VADDPS Z12, Z4, Z4
	VADDPS Z13, Z5, Z5
	VADDPS Z12, Z6, Z6
	VADDPS Z13, Z7, Z7
	VADDPS Z12, Z8, Z8
	VADDPS Z13, Z9, Z9
	VADDPS Z12, Z10, Z10
	VADDPS Z13, Z11, Z11
wnobias:
	TESTQ DX, DX
	JZ wnores
	LEAQ (DX)(BX*4), R12
	ADDTILE512(DX, R12)
wnores:
	TESTQ $2, SI
	JZ wstore
	// max(x, 0) with x second, as in kernelAVX2: a NaN stays NaN.
	VXORPS Z14, Z14, Z14
	VMAXPS Z0, Z14, Z0
	VMAXPS Z1, Z14, Z1
	VMAXPS Z2, Z14, Z2
	VMAXPS Z3, Z14, Z3
	VMAXPS Z4, Z14, Z4
	VMAXPS Z5, Z14, Z5
	VMAXPS Z6, Z14, Z6
	VMAXPS Z7, Z14, Z7
	VMAXPS Z8, Z14, Z8
	VMAXPS Z9, Z14, Z9
	VMAXPS Z10, Z14, Z10
	VMAXPS Z11, Z14, Z11
wstore:
	VMOVUPS Z0, (AX)
	VMOVUPS Z1, 64(AX)
	VMOVUPS Z2, (AX)(BX*1)
	VMOVUPS Z3, 64(AX)(BX*1)
	VMOVUPS Z4, (AX)(BX*2)
	VMOVUPS Z5, 64(AX)(BX*2)
	VMOVUPS Z6, (AX)(R9*1)
	VMOVUPS Z7, 64(AX)(R9*1)
	VMOVUPS Z8, (R11)
	VMOVUPS Z9, 64(R11)
	VMOVUPS Z10, (R11)(BX*1)
	VMOVUPS Z11, 64(R11)(BX*1)
	// The next tile: a, c and res advanced (res only if there is one).
	DECQ tiles+96(FP)
	JZ wdone
	MOVQ astep+104(FP), CX
	SHLQ $2, CX
	ADDQ CX, a+0(FP)
	MOVQ cstep+112(FP), CX
	SHLQ $2, CX
	ADDQ CX, c+56(FP)
	TESTQ DX, DX
	JZ wtile
	ADDQ CX, res+80(FP)
	JMP wtile
wdone:
	RESTOREMXCSR
	VZEROUPPER
	RET

// fmaLoopAVX512 is fmaLoopAVX2 on 16-wide registers: 384 floating-point
// operations an iteration.
//
// func fmaLoopAVX512(n int)
TEXT ·fmaLoopAVX512(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	VXORPS Z8, Z8, Z8
	VXORPS Z9, Z9, Z9
	VXORPS Z10, Z10, Z10
	VXORPS Z11, Z11, Z11
	VXORPS Z12, Z12, Z12
	VXORPS Z13, Z13, Z13
	TESTQ CX, CX
	JZ wdone
wloop:
	VFMADD231PS Z12, Z13, Z0
	VFMADD231PS Z12, Z13, Z1
	VFMADD231PS Z12, Z13, Z2
	VFMADD231PS Z12, Z13, Z3
	VFMADD231PS Z12, Z13, Z4
	VFMADD231PS Z12, Z13, Z5
	VFMADD231PS Z12, Z13, Z6
	VFMADD231PS Z12, Z13, Z7
	VFMADD231PS Z12, Z13, Z8
	VFMADD231PS Z12, Z13, Z9
	VFMADD231PS Z12, Z13, Z10
	VFMADD231PS Z12, Z13, Z11
	DECQ CX
	JNZ wloop
wdone:
	VZEROUPPER
	RET

// fmaLoopAVX2 runs n iterations of 12 independent 8-wide fused
// multiply-adds (192 floating-point operations each): enough chains in
// flight to cover the FMA latency on both pipes, with no loads, so that it
// runs at the core's peak.
//
// func fmaLoopAVX2(n int)
TEXT ·fmaLoopAVX2(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	ZEROTILE
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	TESTQ CX, CX
	JZ done
loop:
	VFMADD231PS Y12, Y13, Y0
	VFMADD231PS Y12, Y13, Y1
	VFMADD231PS Y12, Y13, Y2
	VFMADD231PS Y12, Y13, Y3
	VFMADD231PS Y12, Y13, Y4
	VFMADD231PS Y12, Y13, Y5
	VFMADD231PS Y12, Y13, Y6
	VFMADD231PS Y12, Y13, Y7
	VFMADD231PS Y12, Y13, Y8
	VFMADD231PS Y12, Y13, Y9
	VFMADD231PS Y12, Y13, Y10
	VFMADD231PS Y12, Y13, Y11
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET

// gatherRowsAVX is the AVX form of gatherRowsGo (kernel.go): per row, two
// 32-byte loads and stores, and with sum (not nil) two additions to the
// running sums, kept in Y2 and Y3 and stored at the end.
//
// func gatherRowsAVX(dst *float32, src *float32, px *int, n int, stride int, off int, sum *float32)
TEXT ·gatherRowsAVX(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ px+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ stride+32(FP), R8
	MOVQ off+40(FP), R9
	MOVQ sum+48(FP), DX
	LEAQ (SI)(R9*4), SI
	SHLQ $2, R8
	TESTQ CX, CX
	JZ gdone
	TESTQ DX, DX
	JZ gloop
	VMOVUPS (DX), Y2
	VMOVUPS 32(DX), Y3
gloop:
	MOVQ (BX), AX
	IMULQ R8, AX
	VMOVUPS (SI)(AX*1), Y0
	VMOVUPS 32(SI)(AX*1), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	TESTQ DX, DX
	JZ gnext
	VADDPS Y0, Y2, Y2
	VADDPS Y1, Y3, Y3
gnext:
	ADDQ $8, BX
	ADDQ $64, DI
	DECQ CX
	JNZ gloop
	TESTQ DX, DX
	JZ gdone
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
gdone:
	VZEROUPPER
	RET

// adamAVX is the AVX form of adamGo (adam.go), 8 values an iteration, each
// operation rounded on its own (no FMA) as the Go form's, the results
// flushed as flush does. c points to an AdamStep: Decay, Beta1, Beta2,
// Step, Eps.
//
// func adamAVX(w, grad, m, v *float32, blocks int, c *AdamStep)
TEXT ·adamAVX(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ blocks+32(FP), CX
	MOVQ c+40(FP), AX
	VBROADCASTSS 0(AX), Y8 // Decay
	VBROADCASTSS 4(AX), Y9 // Beta1
	VBROADCASTSS 8(AX), Y11 // Beta2
	VBROADCASTSS 12(AX), Y13 // Step
	VBROADCASTSS 16(AX), Y14 // Eps
	// 1-Beta1 and 1-Beta2, rounded to float32 as in Go.
	MOVL $0x3f800000, BX
	MOVQ BX, X15
	VBROADCASTSS X15, Y15
	VSUBPS Y9, Y15, Y10
	VSUBPS Y11, Y15, Y12
	// The smallest normal's bits, for the flush.
	MOVL $0x00800000, BX
	MOVQ BX, X15
	VPBROADCASTD X15, Y15
	TESTQ CX, CX
	JZ adone
aloop:
	VMOVUPS (DI), Y0
	VMULPS Y8, Y0, Y1 // Decay*w
	VMOVUPS (SI), Y2
	VADDPS Y1, Y2, Y1 // gj = g + Decay*w
	VMOVUPS (R8), Y2
	VMULPS Y9, Y2, Y2 // Beta1*m
	VMULPS Y1, Y10, Y3 // (1-Beta1)*gj
	VADDPS Y3, Y2, Y2 // m
	VMOVUPS (R9), Y4
	VMULPS Y11, Y4, Y4 // Beta2*v
	VMULPS Y1, Y12, Y5 // (1-Beta2)*gj
	VMULPS Y1, Y5, Y5 // ((1-Beta2)*gj)*gj
	VADDPS Y5, Y4, Y4 // v
	VSQRTPS Y4, Y6
	VADDPS Y14, Y6, Y6 // sqrt(v) + Eps
	VMULPS Y2, Y13, Y7 // Step*m
	VDIVPS Y6, Y7, Y7
	VSUBPS Y7, Y0, Y0
	// Flush m, v and w: zero where the magnitude's bits are below the
	// smallest normal's.
	VPSLLD $1, Y2, Y1
	VPSRLD $1, Y1, Y1
	VPCMPGTD Y1, Y15, Y1 // smallest normal > |m|
	VPANDN Y2, Y1, Y2
	VMOVUPS Y2, (R8)
	VPSLLD $1, Y4, Y3
	VPSRLD $1, Y3, Y3
	VPCMPGTD Y3, Y15, Y3
	VPANDN Y4, Y3, Y4
	VMOVUPS Y4, (R9)
	VPSLLD $1, Y0, Y5
	VPSRLD $1, Y5, Y5
	VPCMPGTD Y5, Y15, Y5
	VPANDN Y0, Y5, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ aloop
adone:
	VZEROUPPER
	RET

// reluBackwardAVX is the AVX form of reluBackwardGo (conv.go), 8 values an
// iteration: dst is grad where !(y <= 0) (predicate NLE_UQ, true for a
// NaN), zero elsewhere.
//
// func reluBackwardAVX(dst, grad, y *float32, blocks int)
TEXT ·reluBackwardAVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ grad+8(FP), DX
	MOVQ y+16(FP), SI
	MOVQ blocks+24(FP), CX
	VXORPS Y15, Y15, Y15
	TESTQ CX, CX
	JZ rdone
rloop:
	VMOVUPS (SI), Y0
	VCMPPS $0x16, Y15, Y0, Y0 // y NLE_UQ 0: !(y <= 0)
	VANDPS (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ rloop
rdone:
	VZEROUPPER
	RET

// allFiniteAVX is the AVX form of allFiniteGo (kernel.go), 8 values an
// iteration: the exponent bits, plus 1 at their lowest, ORed together;
// a value with all of them set carries into the sign bit.
//
// func allFiniteAVX(x *float32, blocks int) bool
TEXT ·allFiniteAVX(SB), NOSPLIT, $0-17
	MOVQ x+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVL $0x7f800000, AX
	MOVQ AX, X14
	VPBROADCASTD X14, Y14 // the exponent bits
	MOVL $0x00800000, AX
	MOVQ AX, X13
	VPBROADCASTD X13, Y13 // 1 at the exponent's lowest bit
	VPXOR Y0, Y0, Y0
	TESTQ CX, CX
	JZ fdone
floop:
	VPAND (SI), Y14, Y1
	VPADDD Y13, Y1, Y1
	VPOR Y1, Y0, Y0
	ADDQ $32, SI
	DECQ CX
	JNZ floop
fdone:
	VMOVMSKPS Y0, AX // the sign bits
	TESTL AX, AX
	SETEQ ret+16(FP)
	VZEROUPPER
	RET

// transposeRowsAVX is the AVX form of transposeRows (kernel.go) for groups
// groups of 8 pixels and chans groups of 8 channels: per block, 8 rows of
// 8 channels loaded, added in order to db (unless db is nil), transposed
// and stored as 8 channels' rows of 8 pixels, backwardKC (96) values
// apart.
//
// func transposeRowsAVX(dst, src *float32, px *int, groups, stride, chans int, db *float32)
TEXT ·transposeRowsAVX(SB), NOSPLIT, $24-56
	MOVQ groups+24(FP), AX
	TESTQ AX, AX
	JZ tdone
	MOVQ AX, left-8(SP)
	MOVQ dst+0(FP), AX
	MOVQ AX, col-16(SP)
	MOVQ px+16(FP), AX
	MOVQ AX, pxp-24(SP)
touter:
	// The group's 8 rows: src + px[k]*stride*4.
	MOVQ stride+32(FP), CX
	SHLQ $2, CX
	MOVQ src+8(FP), DX
	MOVQ pxp-24(SP), SI
	MOVQ 0(SI), R8
	IMULQ CX, R8
	ADDQ DX, R8
	MOVQ 8(SI), R9
	IMULQ CX, R9
	ADDQ DX, R9
	MOVQ 16(SI), R10
	IMULQ CX, R10
	ADDQ DX, R10
	MOVQ 24(SI), R11
	IMULQ CX, R11
	ADDQ DX, R11
	MOVQ 32(SI), R12
	IMULQ CX, R12
	ADDQ DX, R12
	MOVQ 40(SI), R13
	IMULQ CX, R13
	ADDQ DX, R13
	MOVQ 48(SI), AX
	IMULQ CX, AX
	ADDQ DX, AX
	MOVQ 56(SI), BX
	IMULQ CX, BX
	ADDQ DX, BX
	ADDQ $64, SI
	MOVQ SI, pxp-24(SP)
	MOVQ col-16(SP), DI
	MOVQ db+48(FP), SI
	MOVQ chans+40(FP), CX
	XORQ DX, DX
tinner:
	VMOVUPS (R8)(DX*1), Y0
	VMOVUPS (R9)(DX*1), Y1
	VMOVUPS (R10)(DX*1), Y2
	VMOVUPS (R11)(DX*1), Y3
	VMOVUPS (R12)(DX*1), Y4
	VMOVUPS (R13)(DX*1), Y5
	VMOVUPS (AX)(DX*1), Y6
	VMOVUPS (BX)(DX*1), Y7
	TESTQ SI, SI
	JZ tnosum
	// The sums, a pixel at a time: db + row 0 + row 1 + ...
	VMOVUPS (SI)(DX*1), Y8
	VADDPS Y0, Y8, Y8
	VADDPS Y1, Y8, Y8
	VADDPS Y2, Y8, Y8
	VADDPS Y3, Y8, Y8
	VADDPS Y4, Y8, Y8
	VADDPS Y5, Y8, Y8
	VADDPS Y6, Y8, Y8
	VADDPS Y7, Y8, Y8
	VMOVUPS Y8, (SI)(DX*1)
tnosum:
	// The 8x8 transpose: pairs of rows interleaved, then pairs of pairs,
	// then the 128-bit halves.
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, 0(DI)
	VMOVUPS Y9, 384(DI)
	VMOVUPS Y10, 768(DI)
	VMOVUPS Y11, 1152(DI)
	VMOVUPS Y12, 1536(DI)
	VMOVUPS Y13, 1920(DI)
	VMOVUPS Y14, 2304(DI)
	VMOVUPS Y15, 2688(DI)
	ADDQ $32, DX
	ADDQ $3072, DI
	DECQ CX
	JNZ tinner
	ADDQ $32, col-16(SP)
	DECQ left-8(SP)
	JNZ touter
tdone:
	VZEROUPPER
	RET

// addToAVX is the AVX form of addToGo (kernel.go), 8 values an iteration.
//
// func addToAVX(dst, src *float32, blocks int)
TEXT ·addToAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JZ adddone
addloop:
	VMOVUPS (DI), Y0
	VADDPS (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ addloop
adddone:
	VZEROUPPER
	RET

// expShiftedAVX is the AVX2 form of ExpShifted (exp.go), 8 values an
// iteration: d = x - shift; n = round(d log2(e)); r = d - n ln(2) in two
// parts; exp(r) = 1 + r + r^2 p(r); exp(d) = exp(r) 2^n, n added to the
// exponent's bits; 0 where d < expMin. c points to expConstants: 32 bytes
// a constant, in that order.
//
// func expShiftedAVX(x *float32, blocks int, shift float32, c *[11][8]float32) float32
TEXT ·expShiftedAVX(SB), NOSPLIT, $0-36
	MOVQ x+0(FP), SI
	MOVQ blocks+8(FP), CX
	VBROADCASTSS shift+16(FP), Y15
	MOVQ c+24(FP), DX
	VXORPS Y0, Y0, Y0 // the sum
	TESTQ CX, CX
	JZ expdone
exploop:
	VMOVUPS (SI), Y1
	VSUBPS Y15, Y1, Y1            // d
	VCMPPS $0x1d, 0(DX), Y1, Y2   // d >= expMin (GE_OQ): the values kept
	VMAXPS 0(DX), Y1, Y1          // d, at least expMin
	VMULPS 32(DX), Y1, Y3
	VROUNDPS $0, Y3, Y3           // n, to nearest
	VFNMADD231PS 64(DX), Y3, Y1   // r = d - n ln2 (the exact part)
	VFNMADD231PS 96(DX), Y3, Y1   // - n ln2 (the rest)
	VMOVUPS 128(DX), Y4           // p(r), Horner's rule
	VFMADD213PS 160(DX), Y1, Y4
	VFMADD213PS 192(DX), Y1, Y4
	VFMADD213PS 224(DX), Y1, Y4
	VFMADD213PS 256(DX), Y1, Y4
	VFMADD213PS 288(DX), Y1, Y4
	VMULPS Y1, Y1, Y5             // r^2
	VFMADD213PS Y1, Y5, Y4        // r^2 p(r) + r
	VADDPS 320(DX), Y4, Y4        // + 1
	VCVTPS2DQ Y3, Y3              // n, whole already: exact
	VPSLLD $23, Y3, Y3
	VPADDD Y3, Y4, Y4             // times 2^n
	VANDPS Y2, Y4, Y4             // 0 below expMin
	VMOVUPS Y4, (SI)
	VADDPS Y4, Y0, Y0
	ADDQ $32, SI
	DECQ CX
	JNZ exploop
expdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+32(FP)
	VZEROUPPER
	RET
