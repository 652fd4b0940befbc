//go:build !purego

#include "textflag.h"

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
