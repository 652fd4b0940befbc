//go:build !purego

#include "textflag.h"
#include "go_asm.h"

// func classifyBlocks(b []byte, out *[blockBatch * masks]uint64)
//
// For each 64-byte block of b (len(b) a multiple of 64, at most blockBatch
// blocks), four masks, bit k for byte k of the block, as classifyRef
// computes them: quotation marks, reverse solidi, bytes below 0x20 or above
// 0x7f, and the bytes / b f n r t (the other bytes of simple escapes, " and
// \, are in the first two masks), this last only if the block has a reverse
// solidus (else 0). SSE2 only, which every amd64 processor has.
//
// Registers: SI the next block, CX the bytes left, DI the next masks; X0-X3
// the block's four 16-byte lanes; X4, X5 scratch; X7-X15 the bytes
// compared with, each in all 16 bytes of its register.

// BYTES sets all 16 bytes of X to the byte in all 8 bytes of the constant C.
#define BYTES(C, X) MOVQ C, AX; MOVQ AX, X; PUNPCKLQDQ X, X

// EQ sets each byte of X4 to 0xff where lane L has the byte in K, else 0.
#define EQ(K, L) MOVO L, X4; PCMPEQB K, X4

// BELOW20 sets each byte of X4 to 0xff where lane L has a byte below 0x20
// or above 0x7f: 0x20 > c compared as signed bytes holds for both.
#define BELOW20(K, L) MOVO X10, X4; PCMPGTB L, X4

// SIMPLE sets each byte of X4 to 0xff where lane L has / b f n r t.
#define SIMPLE(K, L) EQ(X11, L); MOVO L, X5; PCMPEQB X12, X5; POR X5, X4; MOVO L, X5; PCMPEQB X13, X5; POR X5, X4; MOVO L, X5; PCMPEQB X14, X5; POR X5, X4; MOVO L, X5; PCMPEQB X15, X5; POR X5, X4; MOVO L, X5; PCMPEQB X7, X5; POR X5, X4

// MASK puts in AX the 64 bits of OP(K, lane) for the four lanes, lane n's
// 16 bits (PMOVMSKB) at bit 16n.
#define MASK(OP, K) OP(K, X0); PMOVMSKB X4, AX; OP(K, X1); PMOVMSKB X4, BX; SHLQ $16, BX; ORQ BX, AX; OP(K, X2); PMOVMSKB X4, BX; SHLQ $32, BX; ORQ BX, AX; OP(K, X3); PMOVMSKB X4, BX; SHLQ $48, BX; ORQ BX, AX

TEXT ·classifyBlocks(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ out+24(FP), DI
	BYTES($0x2222222222222222, X8)  // "
	BYTES($0x5c5c5c5c5c5c5c5c, X9)  // \
	BYTES($0x2020202020202020, X10) // 0x20
	BYTES($0x2f2f2f2f2f2f2f2f, X11) // /
	BYTES($0x6262626262626262, X12) // b
	BYTES($0x6666666666666666, X13) // f
	BYTES($0x6e6e6e6e6e6e6e6e, X14) // n
	BYTES($0x7272727272727272, X15) // r
	BYTES($0x7474747474747474, X7)  // t
	TESTQ CX, CX
	JZ    done

loop:
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MASK(EQ, X8)
	MOVQ  AX, 0(DI)
	MASK(BELOW20, X10)
	MOVQ  AX, 16(DI)
	MASK(EQ, X9)
	MOVQ  AX, 8(DI)
	TESTQ AX, AX
	JZ    nosolidus
	MASK(SIMPLE, X11)

nosolidus:
	MOVQ AX, 24(DI) // 0 when the block has no reverse solidus
	ADDQ $64, SI
	ADDQ $32, DI
	SUBQ $64, CX
	JNZ  loop

done:
	RET

// The constants of classifyBlocksUTF8, each in all 16 bytes of its own
// 16-byte symbol, read with MOVOU (no alignment assumed).
#define CONST16(name, v) DATA name<>+0(SB)/8, v; DATA name<>+8(SB)/8, v; GLOBL name<>(SB), RODATA|NOPTR, $16
CONST16(quote, $0x2222222222222222)
CONST16(solidus, $0x5c5c5c5c5c5c5c5c)
CONST16(below20, $0x2020202020202020)
CONST16(max1f, $0x1f1f1f1f1f1f1f1f)
CONST16(slash, $0x2f2f2f2f2f2f2f2f)
CONST16(letterb, $0x6262626262626262)
CONST16(letterf, $0x6666666666666666)
CONST16(lettern, $0x6e6e6e6e6e6e6e6e)
CONST16(letterr, $0x7272727272727272)
CONST16(lettert, $0x7474747474747474)
CONST16(nibble, $0x0f0f0f0f0f0f0f0f)
CONST16(third, $0x6060606060606060)
CONST16(fourth, $0x7070707070707070)
CONST16(high, $0x8080808080808080)

// The three tables of the UTF-8 check (Keiser and Lemire, "Validating UTF-8
// in less than one instruction per byte", 2021, section 6), indexed by a
// nibble; utf8Tables in blocks.go builds the same ones and documents the bits.
DATA utf8hi1<>+0(SB)/8, $0x0202020202020202  // 0_______: TOO_LONG
DATA utf8hi1<>+8(SB)/8, $0x4915012180808080  // 10__ TWO_CONTS; 1100 1101 1110 1111
GLOBL utf8hi1<>(SB), RODATA|NOPTR, $16
DATA utf8lo1<>+0(SB)/8, $0xcbcbcb8b8383a3e7
DATA utf8lo1<>+8(SB)/8, $0xcbcbdbcbcbcbcbcb
GLOBL utf8lo1<>(SB), RODATA|NOPTR, $16
DATA utf8hi2<>+0(SB)/8, $0x0101010101010101
DATA utf8hi2<>+8(SB)/8, $0x01010101babaaee6
GLOBL utf8hi2<>(SB), RODATA|NOPTR, $16

#define LOAD(name, X) MOVOU name<>(SB), X

// CTRL sets each byte of X4 to 0xff where lane L has a byte below 0x20:
// min(c, 0x1f) == c. K holds 0x1f in every byte.
#define CTRL(K, L) MOVO L, X4; PMINUB K, X4; PCMPEQB L, X4

// SIMPLEM is SIMPLE with its bytes read from memory.
#define SIMPLEM(K, L) LOAD(slash, X4); PCMPEQB L, X4; LOAD(letterb, X5); PCMPEQB L, X5; POR X5, X4; LOAD(letterf, X5); PCMPEQB L, X5; POR X5, X4; LOAD(lettern, X5); PCMPEQB L, X5; POR X5, X4; LOAD(letterr, X5); PCMPEQB L, X5; POR X5, X4; LOAD(lettert, X5); PCMPEQB L, X5; POR X5, X4

// UTF8 ORs into X15 the errors of lane L, whose 16 bytes follow those of P
// (section 6 of the paper): from each byte and the one before, the classes
// of error their nibbles allow (three table lookups ANDed), XORed with the
// bytes that must continue a three- or four-byte sequence started two or
// three bytes before. X11 holds 0x0f, X12-X14 the tables, X8-X10 0x60,
// 0x70 and 0x80 in every byte; X4-X6 are scratch.
#define UTF8(L, P) MOVO L, X4; PALIGNR $15, P, X4; MOVO X4, X5; PSRLW $4, X5; PAND X11, X5; MOVO X12, X6; PSHUFB X5, X6; PAND X11, X4; MOVO X13, X5; PSHUFB X4, X5; PAND X5, X6; MOVO L, X4; PSRLW $4, X4; PAND X11, X4; MOVO X14, X5; PSHUFB X4, X5; PAND X5, X6; MOVO L, X4; PALIGNR $14, P, X4; PSUBUSB X8, X4; MOVO L, X5; PALIGNR $13, P, X5; PSUBUSB X9, X5; POR X5, X4; PAND X10, X4; PXOR X4, X6; POR X6, X15

// func classifyBlocksUTF8(b []byte, out *[blockBatch * masks]uint64, prev *[16]byte) (bad uint64)
//
// classifyBlocks for processors with SSSE3, which also checks the UTF-8 of
// each block: it writes the same masks but for maskStop, which has only the
// bytes below 0x20, and sets bit k of bad if block k has an error of UTF-8
// that ends in it, reading the 16 bytes before b from prev and leaving in
// prev the last 16 bytes of b. A sequence cut short at the end of b is not
// an error here (the bytes after b may complete it).
//
// Registers: SI the next block, CX the bytes left, DI the next masks, R8
// where the 16 bytes before the block are, R9 their high bits (PMOVMSKB),
// R10 the bit of bad for the block, R11 bad; X0-X3 the block's lanes.
TEXT ·classifyBlocksUTF8(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ out+24(FP), DI
	MOVQ prev+32(FP), R8
	MOVOU (R8), X0
	PMOVMSKB X0, R9
	MOVQ $1, R10
	XORQ R11, R11
	TESTQ CX, CX
	JZ    udone

uloop:
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	LOAD(quote, X8)
	LOAD(solidus, X9)
	LOAD(max1f, X10)
	MASK(EQ, X8)
	MOVQ  AX, 0(DI)
	MASK(CTRL, X10)
	MOVQ  AX, 16(DI)
	MASK(EQ, X9)
	MOVQ  AX, 8(DI)
	TESTQ AX, AX
	JZ    unosolidus
	MASK(SIMPLEM, X11)

unosolidus:
	MOVQ AX, 24(DI) // 0 when the block has no reverse solidus

	// The UTF-8 check, unless the block is ASCII and no sequence of the
	// 16 bytes before it may reach into it (no high bit in their last 3).
	MOVO X0, X4
	POR  X1, X4
	POR  X2, X4
	POR  X3, X4
	PMOVMSKB X4, AX
	TESTL AX, AX
	JNZ  ucheck
	TESTL $0xe000, R9
	JZ   unext

ucheck:
	MOVOU (R8), X7
	LOAD(nibble, X11)
	LOAD(utf8hi1, X12)
	LOAD(utf8lo1, X13)
	LOAD(utf8hi2, X14)
	LOAD(third, X8)
	LOAD(fourth, X9)
	LOAD(high, X10)
	PXOR X15, X15
	UTF8(X0, X7)
	UTF8(X1, X0)
	UTF8(X2, X1)
	UTF8(X3, X2)
	PXOR X4, X4
	PCMPEQB X15, X4
	PMOVMSKB X4, AX
	CMPL AX, $0xffff
	JEQ  unext
	ORQ  R10, R11

unext:
	PMOVMSKB X3, R9
	LEAQ 48(SI), R8
	ADDQ $64, SI
	ADDQ $32, DI
	SHLQ $1, R10
	SUBQ $64, CX
	JNZ  uloop
	MOVOU (R8), X0
	MOVQ prev+32(FP), R8
	MOVOU X0, (R8)

udone:
	MOVQ R11, bad+40(FP)
	RET

// func cpuidSSSE3() bool
//
// Whether the processor has SSSE3 (CPUID leaf 1, ECX bit 9).
TEXT ·cpuidSSSE3(SB), NOSPLIT, $0-1
	MOVL $1, AX
	XORL CX, CX
	CPUID
	SHRL $9, CX
	ANDL $1, CX
	MOVB CX, ret+0(FP)
	RET

// The constants of stringBlocksAVX2: each byte in all 32 bytes of its own
// symbol, or a table in both 16-byte halves.
#define CONST32(name, v) DATA name<>+0(SB)/8, v; DATA name<>+8(SB)/8, v; DATA name<>+16(SB)/8, v; DATA name<>+24(SB)/8, v; GLOBL name<>(SB), RODATA|NOPTR, $32
#define TABLE32(name, lo, hi) DATA name<>+0(SB)/8, lo; DATA name<>+8(SB)/8, hi; DATA name<>+16(SB)/8, lo; DATA name<>+24(SB)/8, hi; GLOBL name<>(SB), RODATA|NOPTR, $32
CONST32(yquote, $0x2222222222222222)
CONST32(ysolidus, $0x5c5c5c5c5c5c5c5c)
CONST32(ymax1f, $0x1f1f1f1f1f1f1f1f)
CONST32(yslash, $0x2f2f2f2f2f2f2f2f)
CONST32(yletterb, $0x6262626262626262)
CONST32(yletterf, $0x6666666666666666)
CONST32(ylettern, $0x6e6e6e6e6e6e6e6e)
CONST32(yletterr, $0x7272727272727272)
CONST32(ylettert, $0x7474747474747474)
CONST32(ynibble, $0x0f0f0f0f0f0f0f0f)
CONST32(ythird, $0x6060606060606060)
CONST32(yfourth, $0x7070707070707070)
CONST32(yhigh, $0x8080808080808080)
TABLE32(yutf8hi1, $0x0202020202020202, $0x4915012180808080)
TABLE32(yutf8lo1, $0xcbcbcb8b8383a3e7, $0xcbcbdbcbcbcbcbcb)
TABLE32(yutf8hi2, $0x0101010101010101, $0x01010101babaaee6)

// YMASK puts in AX the 64 bits of the block for the byte masks in Y2 (bytes
// 0-31) and Y3 (bytes 32-63).
#define YMASK VPMOVMSKB Y2, AX; VPMOVMSKB Y3, BX; SHLQ $32, BX; ORQ BX, AX

// YSIMPLE sets each byte of Y2 to 0xff where H has / b f n r t; Y4 scratch.
#define YSIMPLE(H, Y2) VPCMPEQB yslash<>(SB), H, Y2; VPCMPEQB yletterb<>(SB), H, Y4; VPOR Y4, Y2, Y2; VPCMPEQB yletterf<>(SB), H, Y4; VPOR Y4, Y2, Y2; VPCMPEQB ylettern<>(SB), H, Y4; VPOR Y4, Y2, Y2; VPCMPEQB yletterr<>(SB), H, Y4; VPOR Y4, Y2, Y2; VPCMPEQB ylettert<>(SB), H, Y4; VPOR Y4, Y2, Y2

// YUTF8 ORs into Y12 the errors of the 32 bytes of H, which follow those of
// Q, as UTF8 does for 16; Y8-Y10 hold the tables, Y11 0x0f; Y2-Y5 scratch.
// VPALIGNR shifts within each 16-byte half, so Y2 first gets the last half
// of Q and the first of H.
#define YUTF8(H, Q) VPERM2I128 $0x21, H, Q, Y2; VPALIGNR $15, Y2, H, Y3; VPSRLW $4, Y3, Y4; VPAND Y11, Y4, Y4; VPSHUFB Y4, Y8, Y4; VPAND Y11, Y3, Y3; VPSHUFB Y3, Y9, Y3; VPAND Y3, Y4, Y4; VPSRLW $4, H, Y3; VPAND Y11, Y3, Y3; VPSHUFB Y3, Y10, Y3; VPAND Y3, Y4, Y4; VPALIGNR $14, Y2, H, Y3; VPSUBUSB ythird<>(SB), Y3, Y3; VPALIGNR $13, Y2, H, Y5; VPSUBUSB yfourth<>(SB), Y5, Y5; VPOR Y5, Y3, Y3; VPAND yhigh<>(SB), Y3, Y3; VPXOR Y3, Y4, Y4; VPOR Y4, Y12, Y12

// func stringBlocksAVX2(b []byte, carry uint64, prev *[16]byte) (k int, stop, esc, cin, cout uint64, bad bool)
//
// The loop of blocksAVX2 over the 64-byte blocks of b (len(b) a multiple
// of 64, at least 64), which are a string's contents: for each block, its
// UTF-8 checked as classifyBlocksUTF8 checks it, 32 bytes at a time
// (prev the 16 bytes before b), and the escapes found from its reverse solidi and carry (1 if its
// first byte is escaped) as blocks finds them. It returns at the first
// block with an error of UTF-8 that ends in it (bad) or with a byte that
// blocksAVX2 must look at (stop: a quotation mark that is not escaped, a
// byte below 0x20, an escaped byte that is not one of " \ / b f n r t):
// k the block's offset in b, esc its escaped bytes, cin the carry into it
// and cout the carry out of it. With no such block, k is len(b) and cout
// the carry out of the last block.
//
// Registers: SI the next block, CX the bytes left, DX the carry into the
// block, R8 the carry out of it, R9 the high bits of the 32 bytes before
// the block, R10 the quotation marks, R11 the bytes below 0x20, R12 the
// reverse solidi, R13 the bytes that may be escaped, DI the escaped bytes,
// AX the stop bits, BX scratch; Y0, Y1 the block's halves, Y7 the 32 bytes
// before it, Y8-Y11 the UTF-8 constants, Y12 the UTF-8 errors, Y13-Y15 ",
// \ and 0x1f.
TEXT ·stringBlocksAVX2(SB), NOSPLIT, $0-81
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ carry+24(FP), DX
	MOVQ prev+32(FP), R8
	VBROADCASTI128 (R8), Y7
	VPMOVMSKB Y7, R9
	VMOVDQU yutf8hi1<>(SB), Y8
	VMOVDQU yutf8lo1<>(SB), Y9
	VMOVDQU yutf8hi2<>(SB), Y10
	VMOVDQU ynibble<>(SB), Y11
	VMOVDQU yquote<>(SB), Y13
	VMOVDQU ysolidus<>(SB), Y14
	VMOVDQU ymax1f<>(SB), Y15

sloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1

	// The UTF-8 check, unless the block is ASCII and no sequence of the
	// bytes before it may reach into it (no high bit in their last 3).
	VPOR Y0, Y1, Y2
	VPMOVMSKB Y2, AX
	TESTL AX, AX
	JNZ  scheck
	TESTL $0xe0000000, R9
	JZ   smasks

scheck:
	VPXOR Y12, Y12, Y12
	YUTF8(Y0, Y7)
	YUTF8(Y1, Y0)
	VPTEST Y12, Y12
	JNZ  sbad

smasks:
	VPCMPEQB Y13, Y0, Y2
	VPCMPEQB Y13, Y1, Y3
	YMASK
	MOVQ AX, R10
	VPMINUB Y15, Y0, Y2
	VPCMPEQB Y0, Y2, Y2
	VPMINUB Y15, Y1, Y3
	VPCMPEQB Y1, Y3, Y3
	YMASK
	MOVQ AX, R11
	VPCMPEQB Y14, Y0, Y2
	VPCMPEQB Y14, Y1, Y3
	YMASK
	MOVQ AX, R12
	ORQ  DX, AX
	JNZ  sescapes
	// No reverse solidus and no carry: nothing escaped.
	XORL DI, DI
	XORL R8, R8
	MOVQ R10, AX
	ORQ  R11, AX
	JMP  stest

sescapes:
	YSIMPLE(Y0, Y2)
	YSIMPLE(Y1, Y3)
	YMASK
	MOVQ AX, R13
	ORQ  R10, R13 // the bytes that may be escaped: / b f n r t, " and \
	ORQ  R12, R13
	MOVQ DX, BX
	NOTQ BX
	ANDQ R12, BX // b: the reverse solidi not escaped themselves
	MOVQ BX, AX
	SHLQ $1, AX
	ORQ  DX, AX // follows: the bytes after one of b, or escaped by carry
	MOVQ $0xaaaaaaaaaaaaaaaa, DI
	ANDQ BX, DI
	MOVQ AX, R8
	NOTQ R8
	ANDQ R8, DI // the starts of runs of b on odd bits
	XORL R8, R8
	ADDQ BX, DI // the ends of those runs; the carry out
	SETCS R8
	SHLQ $1, DI
	MOVQ $0x5555555555555555, BX
	XORQ BX, DI
	ANDQ AX, DI // esc: the escaped bytes
	MOVQ DI, AX
	NOTQ AX
	ANDQ R10, AX // quotation marks not escaped
	ORQ  R11, AX
	NOTQ R13
	ANDQ DI, R13 // escaped bytes that may not be
	ORQ  R13, AX

stest:
	TESTQ AX, AX
	JNZ  sstop
	MOVQ R8, DX
	VPMOVMSKB Y1, R9
	VMOVDQA Y1, Y7
	ADDQ $64, SI
	SUBQ $64, CX
	JNZ  sloop
	VZEROUPPER
	MOVQ b_len+8(FP), AX
	MOVQ AX, k+40(FP)
	MOVQ $0, stop+48(FP)
	MOVQ $0, esc+56(FP)
	MOVQ DX, cin+64(FP)
	MOVQ DX, cout+72(FP)
	MOVB $0, bad+80(FP)
	RET

sstop:
	VZEROUPPER
	MOVQ AX, stop+48(FP)
	MOVQ DI, esc+56(FP)
	MOVQ DX, cin+64(FP)
	MOVQ R8, cout+72(FP)
	MOVB $0, bad+80(FP)
	SUBQ b_base+0(FP), SI
	MOVQ SI, k+40(FP)
	RET

sbad:
	VZEROUPPER
	MOVQ $0, stop+48(FP)
	MOVQ $0, esc+56(FP)
	MOVQ DX, cin+64(FP)
	MOVQ $0, cout+72(FP)
	MOVB $1, bad+80(FP)
	SUBQ b_base+0(FP), SI
	MOVQ SI, k+40(FP)
	RET

// func cpuidAVX2() bool
//
// Whether the processor has AVX2 and the operating system saves its
// registers: CPUID leaf 1 ECX bits 27 (OSXSAVE) and 28 (AVX), XGETBV's XCR0
// bits 1 and 2 (SSE and AVX state), CPUID leaf 7 EBX bit 5 (AVX2).
TEXT ·cpuidAVX2(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	XORL AX, AX
	CPUID
	CMPL AX, $7
	JLT  no
	MOVL $1, AX
	XORL CX, CX
	CPUID
	ANDL $0x18000000, CX
	CMPL CX, $0x18000000
	JNE  no
	XORL CX, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE  no
	MOVL $7, AX
	XORL CX, CX
	CPUID
	SHRL $5, BX
	ANDL $1, BX
	MOVB BX, ret+0(FP)

no:
	RET

// The constants of indexBlocksAVX2 beside those of stringBlocksAVX2: u, and
// the two tables of its classes of bytes, by high and by low nibble (their
// AND): 0x01 brackets, 0x02 ',', 0x04 ':', 0x08 ' ', 0x10 tab, LF and CR.
// So a byte is structural where its class & 0x07 is not 0, whitespace where
// its class & 0x18 is not 0, and neither where its class is 0.
CONST32(yletteru, $0x7575757575757575)
CONST32(ystructural, $0x0707070707070707)
TABLE32(yclasshi, $0x01000100040a0010, $0x0000000000000000)
TABLE32(yclasslo, $0x0000000000000008, $0x0000110201141000)

// YM puts in R the 64 bits of the byte masks in A (bytes 0-31) and B (bytes
// 32-63); T is scratch.
#define YM(A, B, R, T) VPMOVMSKB A, R; VPMOVMSKB B, T; SHLQ $32, T; ORQ T, R

// The parts of indexBlocksAVX2 and indexBlocksAVX512 that are the same in
// both, in general-purpose and 128-bit or 256-bit registers:
//
// IESCAPED sets BX to the escaped bytes of the block, from AX (its reverse
// solidi) and DX (1 if its first byte is escaped by the block before), as
// stringBlocksAVX2 finds them: the byte after each reverse solidus that
// ends an odd run of them; DX becomes the carry out. R13 and R14 scratch.
#define IESCAPED MOVQ DX, BX; NOTQ BX; ANDQ AX, BX; MOVQ BX, R14; SHLQ $1, R14; ORQ  DX, R14; MOVQ $0xaaaaaaaaaaaaaaaa, R13; ANDQ BX, R13; MOVQ R14, DX; NOTQ DX; ANDQ DX, R13; XORL DX, DX; ADDQ BX, R13; SETCS DX; SHLQ $1, R13; MOVQ $0x5555555555555555, BX; XORQ BX, R13; ANDQ R14, R13; MOVQ R13, BX
// IESCAPABLE ORs into AX (which holds " and \ on entry) the bytes / b f n
// r t u of the block's halves Y0 and Y1, puts the escaped u in R13, and
// leaves in AX the escaped bytes (BX) that may not be escaped. Y2-Y4 and
// R14 scratch.
#define IESCAPABLE YSIMPLE(Y0, Y2); YSIMPLE(Y1, Y3); YM(Y2, Y3, R14, R13); ORQ  R14, AX; VPCMPEQB yletteru<>(SB), Y0, Y2; VPCMPEQB yletteru<>(SB), Y1, Y3; YM(Y2, Y3, R13, R14); ORQ  R13, AX; ANDQ BX, R13; NOTQ AX; ANDQ BX, AX
// IINSIDE sets AX to the bytes inside strings, from an opening quotation
// mark to before its closing one (R12: the marks not escaped): their prefix
// XOR, a carry-less multiplication by all ones, flipped by the string
// carry R10. X2 and X3 scratch.
#define IINSIDE VMOVQ R12, X2; VPCMPEQB X3, X3, X3; VPCLMULQDQ $0x00, X3, X2, X2; VMOVQ X2, AX; XORQ R10, AX
// ISCALARS sets R14, which holds on entry the block's bytes of a class
// (structural or whitespace), to its tokens other than structural
// characters: the first byte of each run of bytes of numbers and literals
// (outside strings, AX; of no class and no quotation mark, R12), with the
// scalar carry R11 (1 if the byte before the block is in such a run; the
// carry out after), the quotation marks that open a string, and the
// escaped u (R13). BX scratch; R12 becomes the opening quotation marks.
#define ISCALARS ORQ  R12, R14; ORQ  AX, R14; NOTQ R14; MOVQ R14, BX; SHLQ $1, BX; ORQ  R11, BX; MOVQ R14, R11; SHRQ $63, R11; NOTQ BX; ANDQ BX, R14; ANDQ AX, R12; ORQ  R12, R14; ORQ  R13, R14

// func indexBlocksAVX2(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool)
//
// Stage 1 of the structural index, as indexRef computes it: for the 64-byte
// blocks of b (len(b) a multiple of 64, at most maskCap blocks), the mask
// of each block's tokens (bit k for byte k), carrying st (indexState: esc
// at 0, inStr at 8, scalar at 16, prev at 24) from block to block. It
// returns the bytes read, the masks written (one a block), and whether it
// stopped at a block with a fault (UTF-8, a byte below 0x20 in a string, an
// escaped byte that is not " \ / b f n r t u), whose offsets it does not
// write, st then being left as it was before the call (the caller reads
// no further); and whether it stopped before a block that starts inside a
// string and has no quotation mark that is not escaped (long): a long
// string, which the caller skips with str; st is then as after the blocks
// before it.
//
// Registers: SI the next block, CX the bytes left, DI where the next mask
// goes, DX the escape carry, R10 the string carry, R11 the scalar
// carry; AX, BX, R12-R14 scratch. Y0, Y1 the block's halves, Y7 the 32
// bytes before it, Y8-Y11 the UTF-8 tables and 0x0f, Y12 scratch (the
// UTF-8 errors), Y13-Y15 ", \ and 0x1f, Y6 the class table by low nibble.
TEXT ·indexBlocksAVX2(SB), NOSPLIT, $8-58
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ st+24(FP), AX
	MOVQ 0(AX), DX
	MOVQ 8(AX), R10
	MOVQ 16(AX), R11
	VMOVDQU 24(AX), Y7
	MOVQ out+32(FP), DI
	VMOVDQU yutf8hi1<>(SB), Y8
	VMOVDQU yutf8lo1<>(SB), Y9
	VMOVDQU yutf8hi2<>(SB), Y10
	VMOVDQU ynibble<>(SB), Y11
	VMOVDQU yquote<>(SB), Y13
	VMOVDQU ysolidus<>(SB), Y14
	VMOVDQU ymax1f<>(SB), Y15
	VMOVDQU yclasslo<>(SB), Y6

iloop:
	TESTQ CX, CX
	JZ    idone
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1

	// The UTF-8 check, unless the block is ASCII and no sequence of the
	// bytes before it may reach into it (no high bit in their last 3).
	VPOR Y0, Y1, Y2
	VPMOVMSKB Y2, AX
	TESTL AX, AX
	JNZ  icheck
	VPMOVMSKB Y7, AX
	TESTL $0xe0000000, AX
	JZ   imasks

icheck:
	VPXOR Y12, Y12, Y12
	YUTF8(Y0, Y7)
	YUTF8(Y1, Y0)
	VPTEST Y12, Y12
	JNZ  ibad

imasks:
	VPCMPEQB Y13, Y0, Y2
	VPCMPEQB Y13, Y1, Y3
	YM(Y2, Y3, R12, AX) // R12: quotation marks
	VPCMPEQB Y14, Y0, Y2
	VPCMPEQB Y14, Y1, Y3
	YM(Y2, Y3, AX, BX) // AX: reverse solidi
	MOVQ DX, cin-8(SP) // the escape carry into the block, for ilong
	XORL BX, BX        // BX: the escaped bytes
	XORL R13, R13      // R13: the u of \u escapes
	MOVQ AX, R14
	ORQ  DX, R14
	JZ   istrings

	// The escaped bytes, as stringBlocksAVX2 finds them; then each must
	// be one of " \ / b f n r t u.
	IESCAPED
	ORQ  R12, AX // AX: " and \, which may be escaped
	IESCAPABLE
	JNZ  ibad

istrings:
	// The quotation marks not escaped, and from them the bytes inside
	// strings (from an opening mark to before its closing one): a prefix
	// XOR, flipped by the string carry.
	MOVQ BX, AX
	NOTQ AX
	ANDQ AX, R12
	TESTQ R12, R12
	JNZ   ishort
	TESTQ R10, R10
	JNZ   ilong // inside a string the whole block: a long one

ishort:
	IINSIDE

	// No byte below 0x20 inside a string.
	VPMINUB Y15, Y0, Y2
	VPCMPEQB Y0, Y2, Y2
	VPMINUB Y15, Y1, Y3
	VPCMPEQB Y1, Y3, Y3
	YM(Y2, Y3, R14, BX)
	ANDQ AX, R14
	JNZ  ibad
	MOVQ AX, R10
	SARQ $63, R10 // the string carry out

	// The classes of the bytes: Y2, Y3.
	VMOVDQU yclasshi<>(SB), Y5
	VPSRLW $4, Y0, Y2
	VPAND  Y11, Y2, Y2
	VPSHUFB Y2, Y5, Y2
	VPAND  Y11, Y0, Y4
	VPSHUFB Y4, Y6, Y4
	VPAND  Y4, Y2, Y2
	VPSRLW $4, Y1, Y3
	VPAND  Y11, Y3, Y3
	VPSHUFB Y3, Y5, Y3
	VPAND  Y11, Y1, Y4
	VPSHUFB Y4, Y6, Y4
	VPAND  Y4, Y3, Y3

	// The bytes of numbers and literals: outside strings, neither
	// structural, whitespace nor a quotation mark; the first of each run
	// is a token.
	VPXOR Y5, Y5, Y5
	VPCMPGTB Y5, Y2, Y4
	VPCMPGTB Y5, Y3, Y12
	YM(Y4, Y12, R14, BX)
	ISCALARS

	// The structural characters outside strings.
	VPAND ystructural<>(SB), Y2, Y2
	VPCMPGTB Y5, Y2, Y2
	VPAND ystructural<>(SB), Y3, Y3
	VPCMPGTB Y5, Y3, Y3
	YM(Y2, Y3, R12, BX)
	NOTQ AX
	ANDQ AX, R12
	ORQ  R12, R14 // R14: the block's tokens

	MOVQ R14, (DI)
	ADDQ $8, DI

inext:
	VMOVDQA Y1, Y7
	ADDQ $64, SI
	SUBQ $64, CX
	JMP  iloop

ibad:
	MOVB $1, bad+56(FP)
	MOVB $0, long+57(FP)
	JMP  iend

ilong:
	MOVQ cin-8(SP), DX
	MOVB $1, long+57(FP)
	JMP  istate

idone:
	MOVB $0, long+57(FP)

istate:
	MOVB $0, bad+56(FP)
	MOVQ st+24(FP), AX
	MOVQ DX, 0(AX)
	MOVQ R10, 8(AX)
	MOVQ R11, 16(AX)
	VMOVDQU Y7, 24(AX)

iend:
	VZEROUPPER
	MOVQ SI, AX
	SUBQ b_base+0(FP), AX
	MOVQ AX, done+40(FP)
	MOVQ DI, AX
	SUBQ out+32(FP), AX
	SHRQ $3, AX
	MOVQ AX, n+48(FP)
	RET

// The constants of indexBlocksAVX512 read from memory, each byte in all 64
// bytes of its symbol.
#define CONST64(name, v) DATA name<>+0(SB)/8, v; DATA name<>+8(SB)/8, v; DATA name<>+16(SB)/8, v; DATA name<>+24(SB)/8, v; DATA name<>+32(SB)/8, v; DATA name<>+40(SB)/8, v; DATA name<>+48(SB)/8, v; DATA name<>+56(SB)/8, v; GLOBL name<>(SB), RODATA|NOPTR, $64
CONST64(z20, $0x2020202020202020)
CONST64(z07, $0x0707070707070707)

// func indexBlocksAVX512(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool)
//
// indexBlocksAVX2 with AVX-512 (F and BW): each block in one register, Z0,
// and its masks from compares into mask registers. The UTF-8 check, the
// simple escapes and the u of \u escapes, where a block needs them, are
// indexBlocksAVX2's, on the block's halves (Y0, and Y1 taken from Z0).
// Z13, Z14, Z11, Z6 and Z15 hold ", \, 0x0f (Y11 as in indexBlocksAVX2)
// and the two class tables; z20 and z07 0x20 and 0x07, from memory. Only
// Z0-Z15 are used, whose upper bits VZEROUPPER clears (it leaves
// Z16-Z31 as they are). Unlike indexBlocksAVX2, it takes a b whose length
// is not a multiple of 64: its last bytes are read with a masked load into
// a block of spaces (which give no token, inside a string or out), and
// done counts that whole block.
TEXT ·indexBlocksAVX512(SB), NOSPLIT, $8-58
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ st+24(FP), AX
	MOVQ 0(AX), DX
	MOVQ 8(AX), R10
	MOVQ 16(AX), R11
	VMOVDQU 24(AX), Y7
	MOVQ out+32(FP), DI
	VMOVDQU yutf8hi1<>(SB), Y8
	VMOVDQU yutf8lo1<>(SB), Y9
	VMOVDQU yutf8hi2<>(SB), Y10
	MOVL $0x22, AX
	VPBROADCASTB AX, Z13 // "
	MOVL $0x5c, AX
	VPBROADCASTB AX, Z14 // \
	MOVL $0x0f, AX
	VPBROADCASTB AX, Z11
	VBROADCASTI32X4 yclasshi<>(SB), Z6
	VBROADCASTI32X4 yclasslo<>(SB), Z15

zloop:
	CMPQ CX, $64
	JB   zpart
	VMOVDQU64 0(SI), Z0 // Y0: its first half

zblock:

	// The UTF-8 check, unless the block is ASCII and no sequence of the
	// bytes before it may reach into it (no high bit in their last 3),
	// on the block's halves as in indexBlocksAVX2.
	VPMOVB2M Z0, K1
	KORTESTQ K1, K1
	JNZ  zcheck
	VPMOVMSKB Y7, AX
	TESTL $0xe0000000, AX
	JZ   zmasks

zcheck:
	VEXTRACTI64X4 $1, Z0, Y1
	VPXOR Y12, Y12, Y12
	YUTF8(Y0, Y7)
	YUTF8(Y1, Y0)
	VPTEST Y12, Y12
	JNZ  zbad

zmasks:
	VPCMPEQB Z13, Z0, K1
	KMOVQ K1, R12 // R12: quotation marks
	VPCMPEQB Z14, Z0, K2
	KMOVQ K2, AX // AX: reverse solidi
	MOVQ DX, cin-8(SP) // the escape carry into the block, for zlong
	XORL BX, BX        // BX: the escaped bytes
	XORL R13, R13      // R13: the u of \u escapes
	MOVQ AX, R14
	ORQ  DX, R14
	JZ   zstrings

	// The escaped bytes, as stringBlocksAVX2 finds them; then each must
	// be one of " \ / b f n r t u.
	IESCAPED
	ORQ  R12, AX // AX: " and \, which may be escaped
	VEXTRACTI64X4 $1, Z0, Y1
	IESCAPABLE
	JNZ  zbad

zstrings:
	// The quotation marks not escaped, and from them the bytes inside
	// strings (from an opening mark to before its closing one): a prefix
	// XOR, flipped by the string carry.
	MOVQ BX, AX
	NOTQ AX
	ANDQ AX, R12
	TESTQ R12, R12
	JNZ   zshort
	TESTQ R10, R10
	JNZ   zlong // inside a string the whole block: a long one

zshort:
	IINSIDE

	// No byte below 0x20 inside a string.
	VPCMPUB $1, z20<>(SB), Z0, K1 // less than
	KMOVQ K1, R14
	ANDQ AX, R14
	JNZ  zbad
	MOVQ AX, R10
	SARQ $63, R10 // the string carry out

	// The classes of the bytes: Z2.
	VPSRLW $4, Z0, Z2
	VPANDQ Z11, Z2, Z2
	VPSHUFB Z2, Z6, Z2
	VPANDQ Z11, Z0, Z4
	VPSHUFB Z4, Z15, Z4
	VPANDQ Z4, Z2, Z2

	// The bytes of numbers and literals: outside strings, neither
	// structural, whitespace nor a quotation mark; the first of each run
	// is a token.
	VPTESTMB Z2, Z2, K1
	KMOVQ K1, R14
	ISCALARS

	// The structural characters outside strings.
	VPTESTMB z07<>(SB), Z2, K1
	KMOVQ K1, R12
	NOTQ AX
	ANDQ AX, R12
	ORQ  R12, R14 // R14: the block's tokens

	MOVQ R14, (DI)
	ADDQ $8, DI

znext:
	VEXTRACTI64X4 $1, Z0, Y7
	ADDQ $64, SI
	SUBQ $64, CX
	JMP  zloop

zpart:
	// The last bytes of b, fewer than 64, and spaces after them to make
	// a block: a masked load, which reads none of the bytes masked out.
	TESTQ CX, CX
	JZ    zdone
	MOVL  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVQ AX, K1
	VMOVDQU64 z20<>(SB), Z0
	VMOVDQU8 0(SI), K1, Z0
	MOVL  $64, CX
	JMP   zblock

zbad:
	MOVB $1, bad+56(FP)
	MOVB $0, long+57(FP)
	JMP  zend

zlong:
	MOVQ cin-8(SP), DX
	MOVB $1, long+57(FP)
	JMP  zstate

zdone:
	MOVB $0, long+57(FP)

zstate:
	MOVB $0, bad+56(FP)
	MOVQ st+24(FP), AX
	MOVQ DX, 0(AX)
	MOVQ R10, 8(AX)
	MOVQ R11, 16(AX)
	VMOVDQU Y7, 24(AX)

zend:
	VZEROUPPER
	MOVQ SI, AX
	SUBQ b_base+0(FP), AX
	MOVQ AX, done+40(FP)
	MOVQ DI, AX
	SUBQ out+32(FP), AX
	SHRQ $3, AX
	MOVQ AX, n+48(FP)
	RET

// func cpuidIndex() bool
//
// Whether the processor has PCLMULQDQ (CPUID leaf 1 ECX bit 1), which
// indexBlocksAVX2 uses beside AVX2.
TEXT ·cpuidIndex(SB), NOSPLIT, $0-1
	MOVL $1, AX
	XORL CX, CX
	CPUID
	SHRL $1, CX
	ANDL $1, CX
	MOVB CX, ret+0(FP)
	RET

// func cpuidAVX512() bool
//
// Whether the processor has AVX-512 F and BW, and VBMI2 as a mark of a
// processor on which 512-bit instructions cost the rest of the program
// little or no clock speed (see canIndex512), and the operating system
// saves their registers: CPUID leaf 1 ECX bit 27 (OSXSAVE), XGETBV's XCR0
// bits 1, 2 and 5-7 (SSE, AVX, mask registers and both halves of the ZMM
// state), CPUID leaf 7 EBX bits 16 (AVX512F) and 30 (AVX512BW) and ECX bit
// 6 (AVX512_VBMI2).
TEXT ·cpuidAVX512(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	XORL AX, AX
	CPUID
	CMPL AX, $7
	JLT  no512
	MOVL $1, AX
	XORL CX, CX
	CPUID
	ANDL $0x08000000, CX
	CMPL CX, $0x08000000
	JNE  no512
	XORL CX, CX
	XGETBV
	ANDL $0xe6, AX
	CMPL AX, $0xe6
	JNE  no512
	MOVL $7, AX
	XORL CX, CX
	CPUID
	ANDL $0x40010000, BX
	CMPL BX, $0x40010000
	JNE  no512
	ANDL $0x40, CX // AVX512_VBMI2
	JZ   no512
	MOVB $1, ret+0(FP)

no512:
	RET

// func quotes128AVX2(b *[128]byte) (lo, hi uint64)
//
// The masks of the quotation marks in b's two halves, with AVX2 (counted
// in Go, with POPCNT where the processor has it).
TEXT ·quotes128AVX2(SB), NOSPLIT, $0-24
	MOVQ b+0(FP), SI
	VPBROADCASTB yquote<>(SB), Y0
	VPCMPEQB 0(SI), Y0, Y1
	VPCMPEQB 32(SI), Y0, Y2
	YM(Y1, Y2, AX, BX)
	VPCMPEQB 64(SI), Y0, Y1
	VPCMPEQB 96(SI), Y0, Y2
	YM(Y1, Y2, CX, BX)
	VZEROUPPER
	MOVQ AX, lo+8(FP)
	MOVQ CX, hi+16(FP)
	RET
