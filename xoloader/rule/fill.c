// SPDX-License-Identifier: GPL-2.0
/*
 * fill.c - the padding of x86-64 code sections.
 *
 * GNU as pads code with NOPs of every length (0x90, 66 90, 0f 1f /0 with
 * any ModRM/SIB/displacement, up to ten 66/2e prefixes), GNU ld fills gaps
 * between input sections with 0x90, gcc's -falign-* ends in the same, lld
 * and some hand-written assembly use int3, a long alignment may start with
 * a jmp over the rest (to the alignment point), and -fcf-protection puts endbr64 right before a
 * function whose FDE starts after it.  glibc's __restore_rt FDE starts one
 * byte early, inside the NOP before it: so the last unit may be cut short
 * when code follows.  Zero bytes are padding only as a run that ends the
 * gap, right before code (GNU ld pads between the input sections of
 * clang/LLVM-built objects with zeros): fewer than FILL_ZERO_MAX as the
 * whole gap (after a noreturn call), or fewer than FILL_ZERO_AFTER_NOPS
 * after whole NOPs (the section's own alignment, as between libLLVM's
 * functions: 1-15 zeros in every such gap under /usr).  OpenSSL's .Linc
 * table starts with 8 zero bytes that its movdqa reads, and the table goes
 * on after them: not a run that ends the gap.  Zeros never lead, and the
 * lead before zeros is NOPs alone (no int3, endbr64 or jmp, which no
 * assembler puts before ld's zeros).  What this takes for padding that
 * may be data: a zero constant of up to 15 bytes (or 63 alone) right
 * before a function, and a small integer whose low byte is 0x90 there
 * (tests/host/fill.sh pins both; planproof finds no such read under
 * /usr).
 */
#include "fill.h"

#define MAX_INSN 15

size_t fill_lead(const uint8_t *b, size_t n);

/*
 * Length of the fill unit at @b, where @n bytes remain before the end of
 * the run; 0 if there is none.  *@cut: the bytes up to the end are the
 * beginning of a unit (returns @n).
 */
static size_t fill_unit(const uint8_t *b, size_t n, bool *cut)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t k = 0, len, i;
	bool only66 = true;
	uint8_t m;

	*cut = false;
	if (b[0] == 0xcc || b[0] == 0x90)
		return 1;
	if (b[0] == 0xf3) {
		for (i = 1; i < sizeof(endbr64); i++) {
			if (i == n) {
				*cut = true;
				return n;
			}
			if (b[i] != endbr64[i])
				return 0;
		}
		return sizeof(endbr64);
	}
	/*
	 * A forward jmp over fill (GNU as does that for long alignments): the
	 * unit is the jmp and everything it skips, which must be whole fill
	 * units ending exactly at its target, within the run.
	 */
	if (b[0] == 0xeb || b[0] == 0xe9) {
		int64_t t;

		len = b[0] == 0xeb ? 2 : 5;
		if (n < len)
			return 0;
		t = (int64_t)len + (b[0] == 0xeb ? (int8_t)b[1] :
			(int32_t)((uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 24));
		if (t < (int64_t)len || t > (int64_t)n || fill_lead(b + len, (size_t)t - len) != (size_t)t - len)
			return 0;
		return (size_t)t;
	}
	while (k < n && k < MAX_INSN && (b[k] == 0x66 || b[k] == 0x2e)) {
		only66 &= b[k] == 0x66;
		k++;
	}
	if (k == n) {
		*cut = k > 0;
		return *cut ? n : 0;
	}
	if (b[k] == 0x90)
		return k > 0 && only66 && k + 1 <= MAX_INSN ? k + 1 : 0;
	if (b[k] != 0x0f)
		return 0;
	if (k + 1 == n) {
		*cut = true;
		return n;
	}
	if (b[k + 1] != 0x1f)
		return 0;
	if (k + 2 == n) {
		*cut = true;
		return n;
	}
	m = b[k + 2];
	if ((m >> 3) & 7)
		return 0;
	len = k + 3;
	if (m >> 6 != 3) {
		if ((m & 7) == 4) {
			if (len == n) {
				*cut = true;
				return n;
			}
			if (m >> 6 == 0 && (b[len] & 7) == 5)
				len += 4;
			len++;
		} else if (m >> 6 == 0 && (m & 7) == 5) {
			len += 4;
		}
		if (m >> 6 == 1)
			len += 1;
		else if (m >> 6 == 2)
			len += 4;
	}
	if (len > MAX_INSN)
		return 0;
	if (len > n) {
		*cut = true;
		return n;
	}
	return len;
}

/* Whole fill units at @b; with @nops_only, NOPs alone (no int3, endbr64 or jmp). */
static size_t lead_units(const uint8_t *b, size_t n, bool nops_only)
{
	size_t i = 0, l;
	bool cut;

	while (i < n && !(nops_only && (b[i] == 0xcc || b[i] == 0xf3 || b[i] == 0xeb || b[i] == 0xe9)) &&
	       (l = fill_unit(b + i, n - i, &cut)) && !cut)
		i += l;
	return i;
}

size_t fill_lead(const uint8_t *b, size_t n)
{
	return lead_units(b, n, false);
}

bool fill_is_padding(const uint8_t *b, size_t n, bool code_follows)
{
	size_t i = 0, l;
	bool cut;

	while (i < n) {
		l = fill_unit(b + i, n - i, &cut);
		if (!l)
			return false;
		if (cut)
			return code_follows;
		i += l;
	}
	return true;
}

bool fill_is_zero_pad(const uint8_t *b, size_t n, bool code_follows)
{
	size_t i = code_follows ? lead_units(b, n, true) : n;

	if (i == n || n - i >= (i ? FILL_ZERO_AFTER_NOPS : FILL_ZERO_MAX))
		return false;
	for (; i < n; i++)
		if (b[i])
			return false;
	return true;
}
