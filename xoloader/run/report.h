/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/report.h - the --report lines, formatted without libc: the one
 * implementation, used by xoload (apply.c) and by the freestanding audit
 * module.  Each line is written with one write(2) to fd 2 (xoload --plan:
 * fd 1, rt_report_fd).
 *   human: "xoload: OBJECT 0xSTART-0xEND xo|readable WHY"
 *   tsv:   "OBJECT\tSTART\tEND\txo|readable\tWHY" (hex without 0x)
 *   json:  {"object":"OBJECT","start":START,"end":END,"xo":true|false,"why":"WHY"}
 */
#ifndef XOLOADER_RUN_REPORT_H
#define XOLOADER_RUN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../rule/plan.h"

enum report_fmt { REPORT_HUMAN, REPORT_TSV, REPORT_JSON };

/* A line being built in a fixed buffer; overlong lines are cut, never overrun. */
struct rt_line { char b[3 * 4096 + 512]; size_t n; };

void rt_put(struct rt_line *l, const char *s);
void rt_put_hex(struct rt_line *l, uint64_t v);
void rt_put_dec(struct rt_line *l, uint64_t v);
/*
 * @s as a JSON string: quoted, '"' '\\' and control characters escaped,
 * and each byte that is not part of valid UTF-8 as \udcXX (a lone
 * surrogate: Python's surrogateescape), so the line is valid JSON.
 */
void rt_put_json(struct rt_line *l, const char *s);
/*
 * @s with control characters and bytes that are not valid UTF-8 as \xNN:
 * one line of text, whatever a path holds.
 */
void rt_put_safe(struct rt_line *l, const char *s);
/*
 * @s made safe as by rt_put_safe(), for a tool's human line or error
 * message.  Two static buffers, used in turn: two names may be in one
 * line.  Not for the run path, which prints through rt_line.
 */
const char *rt_safe(const char *s);
/* The length of the valid UTF-8 sequence at @s (1 for ASCII), or 0. */
size_t rt_utf8_len(const char *s);
/* Write the line (plus a newline) to rt_report_fd and empty it. */
void rt_flush(struct rt_line *l);
/* The same to @fd (stderr for one-line messages, whatever rt_report_fd is). */
void rt_flush_fd(struct rt_line *l, int fd);
/* Where the lines go: fd 2, or 1 for xoload --plan. */
extern int rt_report_fd;

/* The report lines of @p (link-time addresses + @bias) for object @obj. */
void rt_report_plan(const char *obj, const struct plan *p, uint64_t bias, enum report_fmt fmt);
/* {"object":"OBJECT","xo":false,"why":"WHY"} for what has no plan (the vDSO). */
void rt_report_json_note(const char *obj, const char *why);
/* XOLOAD_TIMES (xoload.h): "xoload: time: EVENT[ OBJ] NS" on stderr. */
void rt_time(const char *event, const char *obj, uint64_t ns);
/*
 * XOLOAD_TIMES set (xoload and the module set this from it): rt_step()
 * prints rt_time() of now.  Unset, a step costs a load and a branch.
 */
extern bool rt_times;
void rt_step(const char *event, const char *obj);

#endif
