// SPDX-License-Identifier: GPL-2.0
/*
 * nullload PROG [ARGS...] - the floor of a preloader: map PROG and its
 * ELF interpreter as the kernel would and jump to ld.so, protecting
 * nothing.  No libc, no relocation (a static-pie without any), a dozen
 * system calls: open and read each of the two files, reserve and map their
 * PT_LOAD segments.
 *
 * Why: xoload in user mode is a preloader.  It is exec()ed instead of
 * PROG and maps PROG and ld.so itself, so unlike execthrough (one more
 * exec in front of PROG, tools/hostbench.c) it pays no second exec: what
 * any preloader must add to a native start is its own exec in place of
 * PROG's, its own pages and the mapping moved from the kernel to user
 * space.  make bench-host times this beside xoload, so that what xoload
 * adds above it is its own work (planning, the module, the hook, the
 * mprotect()s), not a cost of the design.
 *
 * PROG is a path (no PATH search).  The initial stack is reused: argv
 * loses its first word (this program's name), the words above move down
 * one, and the auxiliary vector is rewritten for PROG (AT_PHDR, AT_PHNUM, AT_ENTRY, AT_BASE, AT_EXECFN),
 * as Wine's preloader does.  brk stays this program's, as under xoload.
 * Exit 127 with one line if PROG cannot be opened, read or mapped; a
 * static PROG (no PT_INTERP) is jumped to directly.
 */
#include <elf.h>

#include "../../../xoloader/rule/str.h"
#include "../../../xoloader/run/sys.h"

#define HEAD	4096	/* the ELF header and program headers must lie in the first page */

struct image {
	uint64_t bias;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	char head[HEAD] __attribute__((aligned(8)));
};

static struct image prog, interp;
static char interp_path[256];

static void __attribute__((noreturn)) fail(const char *what, const char *path)
{
	const char *s[] = { "nullload: ", what, ": ", path, "\n" };
	unsigned int i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		rt_syscall(RT_NR_write, 2, s[i], rt_strlen(s[i]));
	rt_exit_group(127);
}

/* Read the head of @path and map its PT_LOAD segments (the kernel's load_elf_binary(), in short). */
static void load(struct image *im, const char *path)
{
	uint64_t lo = ~0ull, hi = 0, base;
	long fd = rt_open(path, RT_O_RDONLY | RT_O_CLOEXEC);
	int i;

	if (fd < 0)
		fail("cannot open", path);
	if (rt_pread((int)fd, im->head, HEAD, 0) < (long)sizeof(Elf64_Ehdr))
		fail("cannot read", path);
	im->eh = (const Elf64_Ehdr *)im->head;
	if (im->eh->e_ident[EI_CLASS] != ELFCLASS64 || im->eh->e_machine != EM_X86_64 ||
	    (im->eh->e_type != ET_EXEC && im->eh->e_type != ET_DYN) || im->eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    im->eh->e_phoff > HEAD || im->eh->e_phnum > (HEAD - im->eh->e_phoff) / sizeof(Elf64_Phdr))
		fail("not an x86-64 ELF program with its program headers in its first page", path);
	im->ph = (const Elf64_Phdr *)(im->head + im->eh->e_phoff);
	for (i = 0; i < im->eh->e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];

		if (p->p_type == PT_LOAD && p->p_memsz) {
			lo = p->p_vaddr < lo ? p->p_vaddr : lo;
			hi = p->p_vaddr + p->p_memsz > hi ? p->p_vaddr + p->p_memsz : hi;
		}
		if (p->p_type == PT_INTERP && im == &prog) {
			if (p->p_filesz >= sizeof(interp_path) ||
			    rt_pread((int)fd, interp_path, p->p_filesz, p->p_offset) != (long)p->p_filesz)
				fail("cannot read PT_INTERP of", path);
			interp_path[p->p_filesz] = 0;
		}
	}
	if (lo >= hi)
		fail("no PT_LOAD segment in", path);
	lo = rt_page_down(lo);
	base = (uint64_t)rt_syscall6(RT_NR_mmap, im->eh->e_type == ET_EXEC ? (long)lo : 0, (long)(rt_page_up(hi) - lo),
				     0, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | (im->eh->e_type == ET_EXEC ? RT_MAP_FIXED : 0),
				     -1, 0);
	if (base > -4096ull)
		fail("cannot reserve address space for", path);
	im->bias = base - lo;
	for (i = 0; i < im->eh->e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];
		uint64_t start = rt_page_down(im->bias + p->p_vaddr), file_end = im->bias + p->p_vaddr + p->p_filesz;
		uint64_t mem_end = rt_page_up(im->bias + p->p_vaddr + p->p_memsz);
		int prot = (p->p_flags & PF_R ? RT_PROT_READ : 0) | (p->p_flags & PF_W ? RT_PROT_WRITE : 0) |
			   (p->p_flags & PF_X ? RT_PROT_EXEC : 0);

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		if (p->p_filesz &&
		    rt_syscall6(RT_NR_mmap, (long)start, (long)(rt_page_up(file_end) - start), prot,
				RT_MAP_PRIVATE | RT_MAP_FIXED, fd, (long)rt_page_down(p->p_offset)) != (long)start)
			fail("cannot map a segment of", path);
		if (p->p_memsz > p->p_filesz) {
			/* .bss: the rest of the file's last page cleared, whole pages anonymous. */
			char *z = (char *)file_end;

			if (p->p_filesz && (p->p_flags & PF_W))
				while ((uint64_t)z & (RT_PAGE_SIZE - 1))
					*z++ = 0;
			z = (char *)(p->p_filesz ? rt_page_up(file_end) : start);
			if ((uint64_t)z < mem_end &&
			    rt_syscall6(RT_NR_mmap, (long)z, (long)(mem_end - (uint64_t)z), prot,
					RT_MAP_PRIVATE | RT_MAP_FIXED | RT_MAP_ANONYMOUS, -1, 0) != (long)z)
				fail("cannot map the .bss of", path);
		}
	}
	rt_close((int)fd);
}

/* The address of PROG's program headers in memory: PT_PHDR, else the first page's copy under its first PT_LOAD. */
static uint64_t prog_phdr(void)
{
	int i;

	for (i = 0; i < prog.eh->e_phnum; i++)
		if (prog.ph[i].p_type == PT_PHDR)
			return prog.bias + prog.ph[i].p_vaddr;
	for (i = 0; i < prog.eh->e_phnum; i++)
		if (prog.ph[i].p_type == PT_LOAD && !prog.ph[i].p_offset)
			return prog.bias + prog.ph[i].p_vaddr + prog.eh->e_phoff;
	fail("program headers not mapped", "PROG");
}

__asm__(".text\n.globl _start\n_start:\n\tmov %rsp, %rdi\n\tcall start_c\n\thlt\n");

void __attribute__((noreturn, used)) start_c(uint64_t *sp);
void start_c(uint64_t *sp)
{
	uint64_t argc = sp[0], entry, *auxv, *w;
	char **argv = (char **)(sp + 1);

	if (argc < 2)
		fail("usage", "nullload PROG [ARGS...]");
	load(&prog, argv[1]);
	if (interp_path[0])
		load(&interp, interp_path);
	for (auxv = sp + argc + 2; *auxv; auxv++)	/* past argv and its NULL, then envp */
		;
	for (auxv++; auxv[0] != AT_NULL; auxv += 2) {
		if (auxv[0] == AT_PHDR)
			auxv[1] = prog_phdr();
		else if (auxv[0] == AT_PHNUM)
			auxv[1] = prog.eh->e_phnum;
		else if (auxv[0] == AT_ENTRY)
			auxv[1] = prog.bias + prog.eh->e_entry;
		else if (auxv[0] == AT_BASE)
			auxv[1] = interp_path[0] ? interp.bias : 0;
		else if (auxv[0] == AT_EXECFN)
			auxv[1] = (uint64_t)argv[1];
	}
	entry = interp_path[0] ? interp.bias + interp.eh->e_entry : prog.bias + prog.eh->e_entry;
	/*
	 * argv[0] (this program) dropped: argc one less, and argv's other
	 * words, envp and auxv one word down, so that the stack pointer keeps
	 * the 16-byte alignment the ABI promises at an entry.
	 */
	for (w = sp + 1; w < auxv + 2; w++)
		w[0] = w[1];
	sp[0] = argc - 1;
	/*
	 * Fixed registers, as xoload's handover: with "r" the compiler may
	 * put entry in rdx (it does at -O0, -O1 and -Os), which the xor
	 * then clears, and the jump goes to 0.
	 */
	__asm__ volatile("mov %0, %%rsp\n\txor %%edx, %%edx\n\tjmp *%1" : : "c"(sp), "a"(entry) : "memory");
	__builtin_unreachable();
}
