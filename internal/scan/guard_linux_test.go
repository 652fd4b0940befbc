package scan

import (
	"strings"
	"syscall"
	"testing"
)

// atGuard returns a copy of text that ends where a page that cannot be
// read begins, so that reading one byte past its end faults; and a
// function that frees the pages.
func atGuard(t *testing.T, text string) ([]byte, func()) {
	t.Helper()
	page := syscall.Getpagesize()
	n := (len(text)/page + 2) * page
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	if err := syscall.Mprotect(mem[n-page:], syscall.PROT_NONE); err != nil {
		syscall.Munmap(mem)
		t.Skip("mprotect:", err)
	}
	data := mem[n-page-len(text) : n-page : n-page]
	copy(data, text)
	return data, func() { syscall.Munmap(mem) }
}

// TestIndexGuardPage scans texts that end against a page that cannot be
// read, with every way of running stage 1 and both walks: the ends that
// indexBlocksAVX512 reads with a masked load, of every length from 0 to 64
// bytes after the last block, taken from the start by loneValue and after
// 16 values; and every prefix of a tools/list message.
func TestIndexGuardPage(t *testing.T) {
	var texts []string
	dense := strings.Repeat(`"a","b",`, 40)
	for n := 0; n <= 64; n++ {
		texts = append(texts,
			`{"id":1,"result":[`+dense+strings.Repeat(" ", n)+`1]}`,
			afterValues(`"`+strings.Repeat("x", n)+`"`),
			`{"id":1,"result":[`+dense+`"`+strings.Repeat("y", 64+n)) // cut short in a string
	}
	seed := loneSeeds()[0]
	for n := range len(seed) {
		texts = append(texts, seed[:n])
	}
	for _, text := range texts {
		data, free := atGuard(t, text)
		scanBoth(t, data)
		free()
	}
}
