package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
)

// ErrBadMagic is the error of [Reader.Header] for data that does not start
// with the expected magic: not a file of the kind asked for.
var ErrBadMagic = errors.New("bad magic")

// VersionError is the error of [Reader.Header] for a file of another
// format version.
type VersionError struct{ Got, Want uint32 }

func (e *VersionError) Error() string {
	return fmt.Sprintf("format version %d: this program reads version %d", e.Got, e.Want)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C of data, the checksum every file of the
// project ends with.
func Checksum(data []byte) uint32 { return crc32.Checksum(data, castagnoli) }

// Writer writes little-endian values to an io.Writer, keeping a CRC-32C
// of every byte and the first error: after an error, writes do nothing.
// It is itself an io.Writer, so that a section of a file written by
// another package goes through the same checksum.
type Writer struct {
	w   io.Writer
	crc hash.Hash32
	n   int64
	err error
	buf []byte
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, crc: crc32.New(castagnoli), buf: make([]byte, 0, 4*floatChunk)}
}

// Write implements io.Writer.
func (e *Writer) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	e.crc.Write(b)
	k, err := e.w.Write(b)
	e.n += int64(k)
	e.err = err
	return k, err
}

// Bytes writes b.
func (e *Writer) Bytes(b []byte) { _, _ = e.Write(b) }

// U16 writes v.
func (e *Writer) U16(v uint16) { e.Bytes(binary.LittleEndian.AppendUint16(e.buf[:0], v)) }

// U32 writes v.
func (e *Writer) U32(v uint32) { e.Bytes(binary.LittleEndian.AppendUint32(e.buf[:0], v)) }

// U64 writes v.
func (e *Writer) U64(v uint64) { e.Bytes(binary.LittleEndian.AppendUint64(e.buf[:0], v)) }

// I64 writes v.
func (e *Writer) I64(v int64) { e.U64(uint64(v)) }

// F32 writes v.
func (e *Writer) F32(v float32) { e.U32(math.Float32bits(v)) }

// String writes the length of s (uint32) and its bytes.
func (e *Writer) String(s string) {
	e.U32(uint32(len(s)))
	e.Bytes([]byte(s))
}

// floatChunk is how many float32 values go through the buffer at once.
const floatChunk = 4096

// Float32s writes the values of v.
func (e *Writer) Float32s(v []float32) {
	for len(v) > 0 {
		k := min(len(v), floatChunk)
		b := e.buf[:0]
		for _, x := range v[:k] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		e.Bytes(b)
		v = v[k:]
	}
}

// Header writes a file's magic and format version (uint32).
func (e *Writer) Header(magic string, version uint32) {
	e.Bytes([]byte(magic))
	e.U32(version)
}

// Sum writes the CRC-32C of everything written so far.
func (e *Writer) Sum() { e.U32(e.crc.Sum32()) }

// Len returns the number of bytes written.
func (e *Writer) Len() int64 { return e.n }

// Err returns the first error.
func (e *Writer) Err() error { return e.err }

// Reader reads little-endian values from an io.Reader, keeping a CRC-32C
// of every byte read and the first error: after an error, reads return
// zeros. It reads exactly the bytes asked for, so that a file can hold
// sections that other readers decode.
type Reader struct {
	r                  io.Reader
	crc                hash.Hash32
	err                error
	buf                []byte
	corrupt, truncated error
}

// NewReader returns a Reader of r. Data that ends early fails with an
// error wrapping truncated; a length over its limit or a wrong checksum
// with one wrapping corrupt.
func NewReader(r io.Reader, corrupt, truncated error) *Reader {
	return &Reader{r: r, crc: crc32.New(castagnoli), corrupt: corrupt, truncated: truncated}
}

// Bytes returns the next n bytes, valid until the next read; nil after an
// error.
func (d *Reader) Bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = d.truncated
		}
		d.err = err
		return nil
	}
	d.crc.Write(b)
	return b
}

// U16 reads a uint16.
func (d *Reader) U16() uint16 {
	if b := d.Bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

// U32 reads a uint32.
func (d *Reader) U32() uint32 {
	if b := d.Bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// U64 reads a uint64.
func (d *Reader) U64() uint64 {
	if b := d.Bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// I64 reads an int64.
func (d *Reader) I64() int64 { return int64(d.U64()) }

// F32 reads a float32.
func (d *Reader) F32() float32 { return math.Float32frombits(d.U32()) }

// String reads a string written by [Writer.String]; one longer than max
// bytes fails as corrupt, before anything is allocated for it.
func (d *Reader) String(max int, what string) string {
	n := d.U32()
	if uint64(n) > uint64(max) {
		d.Fail(fmt.Errorf("%w: %s of %d bytes", d.corrupt, what, n))
		return ""
	}
	return string(d.Bytes(int(n)))
}

// Float32s fills v with the next len(v) values.
func (d *Reader) Float32s(v []float32) {
	for len(v) > 0 && d.err == nil {
		k := min(len(v), floatChunk)
		b := d.Bytes(4 * k)
		for i := range k {
			if b != nil {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		}
		v = v[k:]
	}
}

// Header reads a file's magic and format version: [ErrBadMagic] for
// another magic, a [*VersionError] for another version.
func (d *Reader) Header(magic string, version uint32) error {
	_, err := d.HeaderVersions(magic, version, version)
	return err
}

// HeaderVersions is [Reader.Header] for a reader of the versions oldest to
// newest: it returns the file's version, a [*VersionError] (wanting
// newest) for any other.
func (d *Reader) HeaderVersions(magic string, oldest, newest uint32) (uint32, error) {
	if m := d.Bytes(len(magic)); d.err == nil && string(m) != magic {
		d.Fail(ErrBadMagic)
	}
	v := d.U32()
	if d.err == nil && (v < oldest || v > newest) {
		d.Fail(&VersionError{Got: v, Want: newest})
	}
	return v, d.err
}

// Sum reads the CRC-32C that [Writer.Sum] wrote and checks it against the
// bytes read before it.
func (d *Reader) Sum() error {
	want := d.crc.Sum32()
	if got := d.U32(); d.err == nil && got != want {
		d.Fail(fmt.Errorf("%w: checksum %08x, data gives %08x", d.corrupt, got, want))
	}
	return d.err
}

// Err returns the first error.
func (d *Reader) Err() error { return d.err }

// Fail records err unless an error came first.
func (d *Reader) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}
