package instructor

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// maxStudentFile is the largest file a student copy takes, and the
// largest a class report reads of a student's level folder. The biggest
// file the ladder ships is under 50 KiB; a file of a mebibyte is a build
// output, a data dump or a recording that was committed by mistake.
const maxStudentFile = 1 << 20

// maxLevelFiles is the most files a class report takes in a student's
// level folder: each level ships a dozen or so.
const maxLevelFiles = 300

// BinaryKind says what compiled binary data is ("an ELF executable"), or
// "" for a file the repository may hold. Compiled binaries are known by
// their magic numbers. Any other file that holds a NUL byte is a binary
// too, but for the image formats a README may show (PNG, JPEG, GIF): a
// text file never holds one.
func BinaryKind(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x7fELF")):
		return "an ELF binary (Linux)"
	case hasAnyPrefix(data, "\xfe\xed\xfa\xce", "\xfe\xed\xfa\xcf", "\xce\xfa\xed\xfe", "\xcf\xfa\xed\xfe", "\xca\xfe\xba\xbe"):
		return "a Mach-O binary (macOS)"
	case isPE(data):
		return "a PE binary (Windows)"
	case bytes.HasPrefix(data, []byte("!<arch>\n")):
		return "an archive (a Go package's .a file, or ar's)"
	case bytes.HasPrefix(data, []byte("\x00asm")):
		return "a WebAssembly module"
	case hasAnyPrefix(data, "\x89PNG\r\n\x1a\n", "\xff\xd8\xff", "GIF87a", "GIF89a"):
		return ""
	case bytes.IndexByte(data, 0) >= 0:
		return "a binary file (it holds a NUL byte, which no text file does)"
	}
	return ""
}

func hasAnyPrefix(data []byte, prefixes ...string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(data, []byte(p)) {
			return true
		}
	}
	return false
}

// isPE reports whether data is a Windows executable: an MZ header whose
// offset at 0x3c points at the "PE\0\0" signature. A text file that
// happens to start with MZ is not one.
func isPE(data []byte) bool {
	if len(data) < 0x40 || !bytes.HasPrefix(data, []byte("MZ")) {
		return false
	}
	off := int64(binary.LittleEndian.Uint32(data[0x3c:]))
	return off+4 <= int64(len(data)) && bytes.Equal(data[off:off+4], []byte("PE\x00\x00"))
}

// handoutProblem says why a file of the commit may not go into a student
// copy because of what it is: a binary, or too big. "" means it may.
func handoutProblem(path string, data []byte) string {
	if kind := BinaryKind(data); kind != "" {
		return fmt.Sprintf("%s is %s: a student copy takes no binary", path, kind)
	}
	if len(data) > maxStudentFile {
		return fmt.Sprintf("%s is %.1f MiB, over the %d MiB a student copy takes for one file", path, float64(len(data))/(1<<20), maxStudentFile>>20)
	}
	return ""
}

// AnswersDir holds the code of the ladder command's tests that solves a
// level or a part of one: a learner's code at some point of the climb,
// which a test plays (a part 1 done, a level done the hard way). A
// student copy leaves it out, as it leaves out solutions/, and the tests
// that need it skip there and say why.
const AnswersDir = "harness/cmd/ladder/testdata/answers"
