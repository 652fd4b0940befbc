//go:build !purego

#include "textflag.h"
#include "go_asm.h"

// func walkAMD64(s *scanner, ix *index, r *walkRegs, depth int)
//
// scanner.walk in assembly: the same places, the same grammar, the same
// places to go on at (r, on entry and on return), so that container may
// run either. The kind of container, object or array, is part of where
// the code is (the labels ending in O and A), so that no register holds
// it. Every token taken from the masks is a byte of the text, so its byte
// is read without a bound check; the one past the text's end that refill
// gives where no token is left is refused on entry (walk compiled from Go
// refuses it at every place, or leaves it to container, which does). The code that follows a member ("name":"value",) and an
// element ("value",) runs straight on from one token to the next; what is
// seldom needed (the next block's tokens, a return to container) is out of
// line at the end. A token is taken with TZCNT (BMI1), whose result,
// unlike BSF's, does not depend on the register it writes, and whose carry
// flag says the block has no token left. After a string value the token
// is compared with ',' before 'u', the u of a \u escape being the rarer.
// Between entry and exit a token is held as its offset in its block (DI)
// and a pointer to the block (R11), so that taking one adds nothing: the
// two changes made Scan of a tools/list result 6-10% faster, at 1 KB and
// 1 MB (BenchmarkMessage, test binaries alternated).
//
// Registers: SI the text, R8 a pointer to its end, BX the index, R9 ix.j,
// R10 ix.n, DX t, R11 a pointer to the block at base, DI p less base, R12
// d, R13 depth, R14 the stack of s, R15 its first word (depths 0-63:
// opening and closing a container at those depths touch no memory); AX
// and CX scratch.
TEXT ·walkAMD64(SB), NOSPLIT, $0-32
	MOVQ s+0(FP), AX
	MOVQ scanner_data(AX), SI
	MOVQ (scanner_data+8)(AX), R8
	MOVQ scanner_stack(AX), R14
	MOVQ (R14), R15 // the stack's first word, kept in R15 until exit
	MOVQ ix+8(FP), BX
	MOVQ index_j(BX), R9
	MOVQ index_n(BX), R10
	MOVQ depth+24(FP), R13
	MOVQ r+16(FP), AX
	MOVQ walkRegs_p(AX), DI
	MOVQ walkRegs_t(AX), DX
	MOVQ walkRegs_base(AX), R11
	MOVQ walkRegs_d(AX), R12
	MOVBLZX walkRegs_obj(AX), CX
	MOVQ walkRegs_at(AX), AX
	CMPQ DI, R8
	JAE  wfail
	// From here on R11 points at the block of the tokens in DX, DI is the
	// token's offset in it, and R8 points at the text's end.
	SUBQ R11, DI
	ADDQ SI, R11
	ADDQ SI, R8
	// Where to go on.
	CMPQ AX, $2 // atAfter
	JNE  w3
	TESTL CX, CX
	JNZ  afterO
	JMP  afterA
w3:
	CMPQ AX, $1 // atValue
	JNE  w4
	TESTL CX, CX
	JNZ  valueO
	JMP  valueA
w4:
	CMPQ AX, $3 // atString
	JNE  w5
	TESTL CX, CX
	JNZ  strO
	JMP  strA
w5:
	CMPQ AX, $4 // atOpened
	JNE  w6
	TESTL CX, CX
	JNZ  openedO
	JMP  openedA
w6:
	CMPQ AX, $5 // atName
	JEQ  name
	CMPQ AX, $6 // atNamed
	JEQ  named
	JMP  colon // atColon

// At the token after a value, in an object: ',' and the next member's
// name, or '}'.
afterO:
	MOVBLZX (R11)(DI*1), CX
afterOc:
	CMPL  CX, $0x2c // ','
	JNE   afterOclose
afterOcomma:
	TZCNTQ DX, DI
	JCS   t1more
t1have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At a token that should open a member name.
name:
	CMPB  (R11)(DI*1), $0x22 // '"'
	JNE   wfail
	TZCNTQ DX, DI
	JCS   t2more
t2have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At the token after the opening mark of a member name: ':', or a \u
// escape in the name, for container.
named:
	MOVBLZX (R11)(DI*1), CX
	CMPL  CX, $0x3a // ':'
	JNE   namedu
colonok:
	TZCNTQ DX, DI
	JCS   t3more
t3have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At a token that should start a value, in an object.
valueO:
	MOVBLZX (R11)(DI*1), CX
	CMPL  CX, $0x22 // '"'
	JNE   valueO2
	TZCNTQ DX, DI
	JCS   t4more
t4have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At the token after the opening mark of a string value: a \u escape
// in it, for container, or the token after it.
strO:
	MOVBLZX (R11)(DI*1), CX
	CMPL  CX, $0x2c // ','
	JEQ   afterOcomma
	CMPL  CX, $0x75 // 'u'
	JNE   afterOc
	CMPB  -1(R11)(DI*1), $0x5c // '\\'
	JNE   afterOc
	MOVL  $34, AX // checkEscapes | atAfter
	MOVL  $1, CX
	JMP   wexit
afterOclose:
	CMPL  CX, $0x7d // '}'
	JEQ   closed
	JMP   wfail
namedu:
	CMPL  CX, $0x75 // 'u'
	JNE   wfail
	CMPB  -1(R11)(DI*1), $0x5c // '\\'
	JNE   wfail
	MOVL  $39, AX // checkEscapes | atColon
	MOVL  $1, CX
	JMP   wexit
// At a token that should be a name separator (after a name's escapes).
colon:
	CMPB  (R11)(DI*1), $0x3a // ':'
	JEQ   colonok
	JMP   wfail
valueO2:
	CMPL  CX, $0x7b // '{'
	JEQ   openO
	CMPL  CX, $0x5b // '['
	JEQ   openA
	LEAL  -0x31(CX), AX // c-'1'
	CMPL  AX, $8
	JLS   intO
	CMPL  CX, $0x74 // 't'
	JEQ   trueO
	CMPL  CX, $0x66 // 'f'
	JEQ   falseO
scalarO: // For container to check.
	MOVL  $26, AX // checkScalar | needToken | atAfter
	MOVL  $1, CX
	JMP   wexit
intO: // An integer, unless a fraction or an exponent follows.
	LEAQ  1(R11)(DI*1), AX
intOloop:
	CMPQ  AX, R8
	JAE   tookO
	MOVBLZX (AX), CX
	SUBL  $0x30, CX
	CMPL  CX, $9
	JA    intOend
	INCQ  AX
	JMP   intOloop
intOend:
	ADDL  $0x30, CX
	CMPL  CX, $0x2c // ','
	JEQ   tookO
	JMP   delimO
trueO:
	MOVQ  R8, AX
	SUBQ  R11, AX
	SUBQ  DI, AX
	CMPQ  AX, $5
	JLT   scalarO
	CMPL  (R11)(DI*1), $0x65757274 // "true"
	JNE   scalarO
	MOVBLZX 4(R11)(DI*1), CX
	JMP   delimO
falseO:
	MOVQ  R8, AX
	SUBQ  R11, AX
	SUBQ  DI, AX
	CMPQ  AX, $6
	JLT   scalarO
	CMPL  (R11)(DI*1), $0x736c6166 // "fals"
	JNE   scalarO
	CMPB  4(R11)(DI*1), $0x65 // 'e'
	JNE   scalarO
	MOVBLZX 5(R11)(DI*1), CX
delimO: // Whether CX may follow a number or literal (delimits).
	CMPL  CX, $64
	JAE   delimOhi
	MOVQ  $0x0400100500002600, AX // \t \n \r space " , :
	BTQ   CX, AX
	JCC   scalarO
	JMP   tookO
delimOhi:
	CMPL  CX, $128
	JAE   scalarO
	MOVQ  $0x2800000028000000, AX // [ ] { }, less 64
	BTQ   CX, AX
	JCC   scalarO
tookO:
	TZCNTQ DX, DI
	JCS   t5more
t5have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   afterO

// At the token after a value, in an array: ',' and the next element, or
// ']'.
afterA:
	MOVBLZX (R11)(DI*1), CX
afterAc:
	CMPL  CX, $0x2c // ','
	JNE   afterAclose
afterAcomma:
	TZCNTQ DX, DI
	JCS   t6more
t6have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At a token that should start a value, in an array.
valueA:
	MOVBLZX (R11)(DI*1), CX
	CMPL  CX, $0x22 // '"'
	JNE   valueA2
	TZCNTQ DX, DI
	JCS   t7more
t7have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At the token after the opening mark of a string value: a \u escape
// in it, for container, or the token after it.
strA:
	MOVBLZX (R11)(DI*1), CX
	CMPL  CX, $0x2c // ','
	JEQ   afterAcomma
	CMPL  CX, $0x75 // 'u'
	JNE   afterAc
	CMPB  -1(R11)(DI*1), $0x5c // '\\'
	JNE   afterAc
	MOVL  $34, AX // checkEscapes | atAfter
	MOVL  $0, CX
	JMP   wexit
afterAclose:
	CMPL  CX, $0x5d // ']'
	JEQ   closed
	JMP   wfail
valueA2:
	CMPL  CX, $0x7b // '{'
	JEQ   openO
	CMPL  CX, $0x5b // '['
	JEQ   openA
	LEAL  -0x31(CX), AX // c-'1'
	CMPL  AX, $8
	JLS   intA
	CMPL  CX, $0x74 // 't'
	JEQ   trueA
	CMPL  CX, $0x66 // 'f'
	JEQ   falseA
scalarA: // For container to check.
	MOVL  $26, AX // checkScalar | needToken | atAfter
	MOVL  $0, CX
	JMP   wexit
intA: // An integer, unless a fraction or an exponent follows.
	LEAQ  1(R11)(DI*1), AX
intAloop:
	CMPQ  AX, R8
	JAE   tookA
	MOVBLZX (AX), CX
	SUBL  $0x30, CX
	CMPL  CX, $9
	JA    intAend
	INCQ  AX
	JMP   intAloop
intAend:
	ADDL  $0x30, CX
	CMPL  CX, $0x2c // ','
	JEQ   tookA
	JMP   delimA
trueA:
	MOVQ  R8, AX
	SUBQ  R11, AX
	SUBQ  DI, AX
	CMPQ  AX, $5
	JLT   scalarA
	CMPL  (R11)(DI*1), $0x65757274 // "true"
	JNE   scalarA
	MOVBLZX 4(R11)(DI*1), CX
	JMP   delimA
falseA:
	MOVQ  R8, AX
	SUBQ  R11, AX
	SUBQ  DI, AX
	CMPQ  AX, $6
	JLT   scalarA
	CMPL  (R11)(DI*1), $0x736c6166 // "fals"
	JNE   scalarA
	CMPB  4(R11)(DI*1), $0x65 // 'e'
	JNE   scalarA
	MOVBLZX 5(R11)(DI*1), CX
delimA: // Whether CX may follow a number or literal (delimits).
	CMPL  CX, $64
	JAE   delimAhi
	MOVQ  $0x0400100500002600, AX // \t \n \r space " , :
	BTQ   CX, AX
	JCC   scalarA
	JMP   tookA
delimAhi:
	CMPL  CX, $128
	JAE   scalarA
	MOVQ  $0x2800000028000000, AX // [ ] { }, less 64
	BTQ   CX, AX
	JCC   scalarA
tookA:
	TZCNTQ DX, DI
	JCS   t8more
t8have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   afterA

// At the token after an opening bracket.
openedO:
	CMPB  (R11)(DI*1), $0x7d // '}'
	JEQ   closed
	JMP   name
openedA:
	CMPB  (R11)(DI*1), $0x5d // ']'
	JEQ   closed
	JMP   valueA

// At an opening bracket: one level deeper, the stack's bit for it set
// (object) or cleared (array), unless that is deeper than the stack.
openO:
	INCQ  R12
	MOVQ  s+0(FP), AX
	CMPQ  R12, scanner_deepest(AX)
	JGT   wfail
	CMPQ  R12, $64
	JAE   openOdeep
	BTSQ  R12, R15
openOtook:
	TZCNTQ DX, DI
	JCS   t9more
t9have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   openedO
openA:
	INCQ  R12
	MOVQ  s+0(FP), AX
	CMPQ  R12, scanner_deepest(AX)
	JGT   wfail
	CMPQ  R12, $64
	JAE   openAdeep
	BTRQ  R12, R15
openAtook:
	TZCNTQ DX, DI
	JCS   t10more
t10have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   openedA

// At the bracket that closes the container at depth d: the container's
// end, or the token after it in the one around it.
closed:
	DECQ  R12
	CMPQ  R12, R13
	JEQ   wdone
	CMPQ  R12, $64
	JAE   closeddeep
	BTQ   R12, R15
	JCS   closedO
closedA:
	TZCNTQ DX, DI
	JCS   t11more
t11have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   afterA
closedO:
	TZCNTQ DX, DI
	JCS   t12more
t12have:
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   afterO

// What is seldom needed.
// DEEPBIT sets (BTSQ) or clears (BTRQ) the bit of depth R12, 64 or more,
// in the stack's word for it in memory.
#define DEEPBIT(OP) MOVQ R12, AX; SHRQ $6, AX; MOVQ (R14)(AX*8), CX; OP R12, CX; MOVQ CX, (R14)(AX*8)
openOdeep:
	DEEPBIT(BTSQ)
	JMP   openOtook
openAdeep:
	DEEPBIT(BTRQ)
	JMP   openAtook
closeddeep:
	MOVQ  R12, AX
	SHRQ  $6, AX
	MOVQ  (R14)(AX*8), AX
	BTQ   R12, AX
	JCS   closedO
	JMP   closedA
t1more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t1need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t1need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t1have
t1need:
	MOVL  $13, AX // needToken | atName
	MOVL  $1, CX
	JMP   wexit
t2more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t2need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t2need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t2have
t2need:
	MOVL  $14, AX // needToken | atNamed
	MOVL  $1, CX
	JMP   wexit
t3more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t3need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t3need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t3have
t3need:
	MOVL  $9, AX // needToken | atValue
	MOVL  $1, CX
	JMP   wexit
t4more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t4need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t4need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t4have
t4need:
	MOVL  $11, AX // needToken | atString
	MOVL  $1, CX
	JMP   wexit
t5more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t5need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t5need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t5have
t5need:
	MOVL  $10, AX // needToken | atAfter
	MOVL  $1, CX
	JMP   wexit
t6more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t6need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t6need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t6have
t6need:
	MOVL  $9, AX // needToken | atValue
	MOVL  $0, CX
	JMP   wexit
t7more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t7need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t7need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t7have
t7need:
	MOVL  $11, AX // needToken | atString
	MOVL  $0, CX
	JMP   wexit
t8more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t8need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t8need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t8have
t8need:
	MOVL  $10, AX // needToken | atAfter
	MOVL  $0, CX
	JMP   wexit
t9more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t9need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t9need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t9have
t9need:
	MOVL  $12, AX // needToken | atOpened
	MOVL  $1, CX
	JMP   wexit
t10more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t10need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t10need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t10have
t10need:
	MOVL  $12, AX // needToken | atOpened
	MOVL  $0, CX
	JMP   wexit
t11more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t11need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t11need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t11have
t11need:
	MOVL  $10, AX // needToken | atAfter
	MOVL  $0, CX
	JMP   wexit
t12more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t12need
	MOVQ  index_masks(BX)(AX*8), DX
	TZCNTQ DX, DI
	JCS   t12need
	MOVQ  AX, R9
	ADDQ  $64, R11
	JMP   t12have
t12need:
	MOVL  $10, AX // needToken | atAfter
	MOVL  $1, CX
	JMP   wexit

wdone:
	MOVL  $64, AX // walkDone
	XORL  CX, CX
	JMP   wexit

wfail:
	MOVL  $65, AX // walkFail
	XORL  CX, CX

// AX: where to go on; CX: obj.
wexit:
	MOVQ  R15, (R14)
	ADDQ  R11, DI
	SUBQ  SI, DI
	SUBQ  SI, R11
	MOVQ  R9, index_j(BX)
	MOVQ  r+16(FP), BX
	MOVQ  AX, walkRegs_at(BX)
	MOVQ  DI, walkRegs_p(BX)
	MOVQ  DX, walkRegs_t(BX)
	MOVQ  R11, walkRegs_base(BX)
	MOVQ  R12, walkRegs_d(BX)
	MOVB  CX, walkRegs_obj(BX)
	RET

// func cpuidBMI1() bool
//
// Whether the processor has BMI1 (CPUID leaf 7 EBX bit 3), whose TZCNT
// walkAMD64 uses: without it the same bytes run as BSF, which sets no
// carry flag.
TEXT ·cpuidBMI1(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	XORL AX, AX
	CPUID
	CMPL AX, $7
	JLT  nobmi1
	MOVL $7, AX
	XORL CX, CX
	CPUID
	ANDL $0x08, BX
	JZ   nobmi1
	MOVB $1, ret+0(FP)

nobmi1:
	RET
