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
// gives where no token is left is refused on entry, as every place of walk
// refuses it. The code that follows a member ("name":"value",) and an
// element ("value",) runs straight on from one token to the next; what is
// seldom needed (the next block's tokens, a return to container) is out of
// line at the end.
//
// Registers: SI the text, R8 its length, BX the index, R9 ix.j, R10 ix.n,
// DX t, R11 base, DI p, R12 d, R13 depth, R14 the stack of s; AX and CX
// scratch.
TEXT ·walkAMD64(SB), NOSPLIT, $0-32
	MOVQ s+0(FP), AX
	MOVQ scanner_data(AX), SI
	MOVQ (scanner_data+8)(AX), R8
	MOVQ scanner_stack(AX), R14
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
	MOVBLZX (SI)(DI*1), CX
afterOc:
	CMPL  CX, $0x2c // ','
	JNE   afterOclose
	BSFQ  DX, DI
	JZ    t1more
t1have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At a token that should open a member name.
name:
	CMPB  (SI)(DI*1), $0x22 // '"'
	JNE   wfail
	BSFQ  DX, DI
	JZ    t2more
t2have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At the token after the opening mark of a member name: ':', or a \u
// escape in the name, for container.
named:
	MOVBLZX (SI)(DI*1), CX
	CMPL  CX, $0x3a // ':'
	JNE   namedu
colonok:
	BSFQ  DX, DI
	JZ    t3more
t3have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At a token that should start a value, in an object.
valueO:
	MOVBLZX (SI)(DI*1), CX
	CMPL  CX, $0x22 // '"'
	JNE   valueO2
	BSFQ  DX, DI
	JZ    t4more
t4have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At the token after the opening mark of a string value: a \u escape
// in it, for container, or the token after it.
strO:
	MOVBLZX (SI)(DI*1), CX
	CMPL  CX, $0x75 // 'u'
	JNE   afterOc
	CMPB  -1(SI)(DI*1), $0x5c // '\\'
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
	CMPB  -1(SI)(DI*1), $0x5c // '\\'
	JNE   wfail
	MOVL  $39, AX // checkEscapes | atColon
	MOVL  $1, CX
	JMP   wexit
// At a token that should be a name separator (after a name's escapes).
colon:
	CMPB  (SI)(DI*1), $0x3a // ':'
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
	LEAQ  1(DI), AX
intOloop:
	CMPQ  AX, R8
	JAE   tookO
	MOVBLZX (SI)(AX*1), CX
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
	SUBQ  DI, AX
	CMPQ  AX, $5
	JLT   scalarO
	CMPL  (SI)(DI*1), $0x65757274 // "true"
	JNE   scalarO
	MOVBLZX 4(SI)(DI*1), CX
	JMP   delimO
falseO:
	MOVQ  R8, AX
	SUBQ  DI, AX
	CMPQ  AX, $6
	JLT   scalarO
	CMPL  (SI)(DI*1), $0x736c6166 // "fals"
	JNE   scalarO
	CMPB  4(SI)(DI*1), $0x65 // 'e'
	JNE   scalarO
	MOVBLZX 5(SI)(DI*1), CX
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
	BSFQ  DX, DI
	JZ    t5more
t5have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   afterO

// At the token after a value, in an array: ',' and the next element, or
// ']'.
afterA:
	MOVBLZX (SI)(DI*1), CX
afterAc:
	CMPL  CX, $0x2c // ','
	JNE   afterAclose
	BSFQ  DX, DI
	JZ    t6more
t6have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At a token that should start a value, in an array.
valueA:
	MOVBLZX (SI)(DI*1), CX
	CMPL  CX, $0x22 // '"'
	JNE   valueA2
	BSFQ  DX, DI
	JZ    t7more
t7have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
// At the token after the opening mark of a string value: a \u escape
// in it, for container, or the token after it.
strA:
	MOVBLZX (SI)(DI*1), CX
	CMPL  CX, $0x75 // 'u'
	JNE   afterAc
	CMPB  -1(SI)(DI*1), $0x5c // '\\'
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
	LEAQ  1(DI), AX
intAloop:
	CMPQ  AX, R8
	JAE   tookA
	MOVBLZX (SI)(AX*1), CX
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
	SUBQ  DI, AX
	CMPQ  AX, $5
	JLT   scalarA
	CMPL  (SI)(DI*1), $0x65757274 // "true"
	JNE   scalarA
	MOVBLZX 4(SI)(DI*1), CX
	JMP   delimA
falseA:
	MOVQ  R8, AX
	SUBQ  DI, AX
	CMPQ  AX, $6
	JLT   scalarA
	CMPL  (SI)(DI*1), $0x736c6166 // "fals"
	JNE   scalarA
	CMPB  4(SI)(DI*1), $0x65 // 'e'
	JNE   scalarA
	MOVBLZX 5(SI)(DI*1), CX
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
	BSFQ  DX, DI
	JZ    t8more
t8have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   afterA

// At the token after an opening bracket.
openedO:
	CMPB  (SI)(DI*1), $0x7d // '}'
	JEQ   closed
	JMP   name
openedA:
	CMPB  (SI)(DI*1), $0x5d // ']'
	JEQ   closed
	JMP   valueA

// At an opening bracket: one level deeper, the stack's bit for it set
// (object) or cleared (array), unless that is deeper than the stack.
openO:
	INCQ  R12
	MOVQ  s+0(FP), AX
	CMPQ  R12, scanner_deepest(AX)
	JGT   wfail
	MOVQ  R12, AX
	SHRQ  $6, AX
	MOVQ  (R14)(AX*8), CX
	BTSQ  R12, CX
	MOVQ  CX, (R14)(AX*8)
	BSFQ  DX, DI
	JZ    t9more
t9have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   openedO
openA:
	INCQ  R12
	MOVQ  s+0(FP), AX
	CMPQ  R12, scanner_deepest(AX)
	JGT   wfail
	MOVQ  R12, AX
	SHRQ  $6, AX
	MOVQ  (R14)(AX*8), CX
	BTRQ  R12, CX
	MOVQ  CX, (R14)(AX*8)
	BSFQ  DX, DI
	JZ    t10more
t10have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   openedA

// At the bracket that closes the container at depth d: the container's
// end, or the token after it in the one around it.
closed:
	DECQ  R12
	CMPQ  R12, R13
	JEQ   wdone
	MOVQ  R12, AX
	SHRQ  $6, AX
	MOVQ  (R14)(AX*8), AX
	BTQ   R12, AX
	JCS   closedO
	BSFQ  DX, DI
	JZ    t11more
t11have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   afterA
closedO:
	BSFQ  DX, DI
	JZ    t12more
t12have:
	ADDQ  R11, DI
	LEAQ  -1(DX), AX
	ANDQ  AX, DX
	JMP   afterO

// What is seldom needed.
t1more: // The next block's tokens, if stage 1 has read it.
	LEAQ  1(R9), AX
	CMPQ  AX, R10
	JEQ   t1need
	MOVQ  index_masks(BX)(AX*8), DX
	BSFQ  DX, DI
	JZ    t1need
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
	BSFQ  DX, DI
	JZ    t2need
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
	BSFQ  DX, DI
	JZ    t3need
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
	BSFQ  DX, DI
	JZ    t4need
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
	BSFQ  DX, DI
	JZ    t5need
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
	BSFQ  DX, DI
	JZ    t6need
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
	BSFQ  DX, DI
	JZ    t7need
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
	BSFQ  DX, DI
	JZ    t8need
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
	BSFQ  DX, DI
	JZ    t9need
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
	BSFQ  DX, DI
	JZ    t10need
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
	BSFQ  DX, DI
	JZ    t11need
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
	BSFQ  DX, DI
	JZ    t12need
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
	MOVQ  R9, index_j(BX)
	MOVQ  r+16(FP), BX
	MOVQ  AX, walkRegs_at(BX)
	MOVQ  DI, walkRegs_p(BX)
	MOVQ  DX, walkRegs_t(BX)
	MOVQ  R11, walkRegs_base(BX)
	MOVQ  R12, walkRegs_d(BX)
	MOVB  CX, walkRegs_obj(BX)
	RET
