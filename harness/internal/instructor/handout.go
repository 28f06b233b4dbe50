package instructor

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// maxStudentFile is the largest file a student copy takes, and a class
// report reads of a student's level folder.
const maxStudentFile = 1 << 20

// maxLevelFiles is the most files a class report takes in a level folder.
const maxLevelFiles = 300

// BinaryKind says what binary data is ("an ELF binary (Linux)"), or "" for
// text and the images a README may show.
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

// isPE reports whether data is a Windows executable: MZ, then "PE\0\0"
// where the offset at 0x3c points.
func isPE(data []byte) bool {
	if len(data) < 0x40 || !bytes.HasPrefix(data, []byte("MZ")) {
		return false
	}
	off := int64(binary.LittleEndian.Uint32(data[0x3c:]))
	return off+4 <= int64(len(data)) && bytes.Equal(data[off:off+4], []byte("PE\x00\x00"))
}

// handoutProblem says why a file may not go into a student copy, or "".
func handoutProblem(path string, data []byte) string {
	if kind := BinaryKind(data); kind != "" {
		return fmt.Sprintf("%s is %s: a student copy takes no binary", path, kind)
	}
	if len(data) > maxStudentFile {
		return fmt.Sprintf("%s is %.1f MiB, over the %d MiB a student copy takes for one file", path, float64(len(data))/(1<<20), maxStudentFile>>20)
	}
	return ""
}

// AnswersDir holds the ladder command's tests' code that solves levels or
// parts, which a student copy leaves out.
const AnswersDir = "harness/cmd/ladder/testdata/answers"
