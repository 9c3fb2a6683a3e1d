package codec

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
)

var (
	errTestCorrupt   = errors.New("corrupt")
	errTestTruncated = errors.New("truncated")
)

// sample writes one of every value with a header and a checksum.
func sample() []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Header("TESTFILE", 3)
	w.U16(0xbeef)
	w.U32(0xdeadbeef)
	w.U64(1 << 40)
	w.I64(-5)
	w.F32(1.5)
	w.String("héllo")
	w.Float32s([]float32{0, -1, float32(math.Inf(1))})
	w.Sum()
	if w.Err() != nil || w.Len() != int64(buf.Len()) {
		panic(fmt.Sprintf("writer: %v, %d of %d bytes", w.Err(), w.Len(), buf.Len()))
	}
	return buf.Bytes()
}

// readSample reads what sample wrote, returning the reader's error.
func readSample(data []byte) (string, error) {
	r := NewReader(bytes.NewReader(data), errTestCorrupt, errTestTruncated)
	if err := r.Header("TESTFILE", 3); err != nil {
		return "", err
	}
	a, b, c, d, e := r.U16(), r.U32(), r.U64(), r.I64(), r.F32()
	s := r.String(16, "name")
	v := make([]float32, 3)
	r.Float32s(v)
	if err := r.Sum(); err != nil {
		return "", err
	}
	return fmt.Sprint(a, b, c, d, e, s, v), nil
}

func TestRoundTrip(t *testing.T) {
	got, err := readSample(sample())
	if want := fmt.Sprint(uint16(0xbeef), uint32(0xdeadbeef), uint64(1<<40), int64(-5), float32(1.5), "héllo", []float32{0, -1, float32(math.Inf(1))}); err != nil || got != want {
		t.Errorf("read back %q (%v), want %q", got, err, want)
	}
}

func TestReaderErrors(t *testing.T) {
	good := sample()
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		is   error
		data []byte
	}{
		{"empty", errTestTruncated, nil},
		{"other magic", ErrBadMagic, edit(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"cut in the header", errTestTruncated, good[:10]},
		{"cut in the values", errTestTruncated, good[:30]},
		{"cut before the checksum", errTestTruncated, good[:len(good)-4]},
		{"a flipped bit", errTestCorrupt, edit(func(b []byte) []byte { b[14] ^= 1; return b })},
		{"a string over its limit", errTestCorrupt, edit(func(b []byte) []byte { b[38] = 200; return b })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := readSample(tc.data); !errors.Is(err, tc.is) {
				t.Errorf("error %v, want %v", err, tc.is)
			}
		})
	}
	t.Run("other version", func(t *testing.T) {
		var v *VersionError
		_, err := readSample(edit(func(b []byte) []byte { b[8] = 9; return b }))
		if !errors.As(err, &v) || v.Got != 9 || v.Want != 3 || err.Error() != "format version 9: this program reads version 3" {
			t.Errorf("error %v, want version 9 of 3", err)
		}
	})
}

func TestChecksumIsCRC32C(t *testing.T) {
	// The check value of CRC-32C (Castagnoli) for "123456789".
	if got := Checksum([]byte("123456789")); got != 0xe3069283 {
		t.Errorf("Checksum = %08x, want e3069283", got)
	}
}

func TestWriterKeepsFirstError(t *testing.T) {
	errFull := errors.New("disk full")
	w := NewWriter(failingWriter{errFull})
	w.U32(1)
	w.String("more")
	if !errors.Is(w.Err(), errFull) || w.Len() != 0 {
		t.Errorf("error %v after %d bytes: want the first error and nothing written", w.Err(), w.Len())
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

func FuzzReader(f *testing.F) {
	f.Add(sample())
	f.Add([]byte("TESTFILE"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := readSample(data)
		if err == nil && !bytes.Equal(data, sample()) {
			// Anything else that reads must at least carry a valid checksum.
			if Checksum(data[:len(data)-4]) != uint32(data[len(data)-4])|uint32(data[len(data)-3])<<8|uint32(data[len(data)-2])<<16|uint32(data[len(data)-1])<<24 {
				t.Errorf("read %q from data with a bad checksum", got)
			}
		}
	})
}

func ExampleWriter() {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Header("EXAMPLE1", 1)
	w.String("hello")
	w.Sum()

	r := NewReader(&buf, errors.New("corrupt"), errors.New("truncated"))
	err := r.Header("EXAMPLE1", 1)
	s := r.String(64, "greeting")
	fmt.Println(s, err, r.Sum())
	// Output: hello <nil> <nil>
}
