/* commands.c — the command table and the dispatcher; see commands.h. */
#include "commands.h"
#include "term_escape.h"
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include "model.h"
#include "router.h"

#define G_RUN(scope) {run_option_specs, offsetof(cli_args, run), scope, NULL}
#define G_UI(scope) {ui_option_specs, offsetof(cli_args, ui), scope, "UI options"}

static const char live_about[] =
    "Debugs a package live in the full-screen UI: s steps one kernel, c continues, r\n"
    "restarts. Every event is recorded to PATH (default\n"
    "./aotidbg-session-<time>.yaml). The device/shape checklist runs first; a FAIL\n"
    "row keeps the run from starting unless --force is given. The run is the one\n"
    "`aotidbg run` makes (the same modes, options and session); live mode blocks at\n"
    "every kernel boundary.\n";
static const char live_after[] =
    "Exit codes: as `aotidbg run` for the run (0 ran, 1 the model failed or the\n"
    "runner died, 2 bad usage or input); 1 also when a scripted action (--keys,\n"
    "--script) failed or is unknown.\n";

static const char run_about[] =
    "Runs an AOTInductor package headless, kernel by kernel, and records every event\n"
    "(kernels, their tensors' statistics, errors, outputs, runner output) to OUT.yaml\n"
    "as it happens. PKG is a .pt2 from torch._inductor.aoti_compile_and_package, or a\n"
    "bare model .so from torch._export.aot_compile (then --device is required).\n";
static const char run_after[] =
    "Before running, the checklist of `aotidbg check` runs; its rows go into the\n"
    "session, and a FAIL row stops the run (exit 1; 2 when only input rows or a\n"
    "damaged package failed) unless --force. The session\n"
    "records the mode (printer, reinstrument, interpose or none) and a run.mode row\n"
    "saying what it sees, and end_state says how the run ended. Errors are routed\n"
    "(aotidbg route) with the runner's output and the package's code.\n"
    "\n"
    "With --eager PROGRAM.pt2 each kernel's output is compared with that exported\n"
    "program run eagerly on the same inputs; the first that departs is a divergence\n"
    "event, and --break-on diverge stops there.\n"
    "\n"
    "Exit codes: 0 the model ran (or stopped at a kernel= / index= break; outputs\n"
    "that hold NaN/Inf are named, and --break-on nan makes them a failure; a\n"
    "departure from --eager is named, and --break-on diverge makes it a failure);\n"
    "1 the model failed, a nan/error/diverge break hit, the runner died, a checklist\n"
    "row failed, or the eager program failed to run; 2 bad usage or bad input (too\n"
    "few or too many inputs, an unreadable or CRC-damaged package, a kernel= /\n"
    "index= break that matched no kernel, or an --eager program or inputs it cannot\n"
    "take); 3 the model ran to the end with --eager and nothing\n"
    "departed, but not every kernel was compared (the summary says \"compared K of\n"
    "N kernels\" and which were not).\n";

static const char repro_about[] =
    "Makes a standalone repro of one kernel launch: runs PKG to that launch, writes every\n"
    "tensor the kernel is handed in full before it runs (DIR/in/NAME.npy, weights too) and\n"
    "after (DIR/expected/NAME.npy), and the kernel's code as the package holds it: a CPU\n"
    "cpp_* kernel's function from kernel.cpp with the call wrapper.cpp makes; an extern\n"
    "call's shim call (its launcher links libtorch); a Triton kernel's cubin (and its\n"
    "Triton source) with the exact launch: grid, block, shared memory, every argument.\n"
    "DIR also gets main.cpp, CMakeLists.txt, README and the run's session.yaml.\n"
    "\n"
    "  cmake -S DIR -B DIR/build && cmake --build DIR/build && DIR/build/repro\n"
    "\n"
    "runs the kernel once on in/, writes DIR/out/NAME.npy and exits 0 when every output\n"
    "equals expected/ bit for bit, 1 when not (printing the first differing element) or\n"
    "when the kernel fails (a kernel that failed in the run fails the same way: the\n"
    "assert's message, the CUDA error). No Python: a CPU repro needs a C++ compiler and\n"
    "torch's headers, a CUDA repro only the CUDA driver.\n";
static const char repro_after[] =
    "What cannot be captured is refused, naming the argument and why (a tensor the\n"
    "printer does not hand over, a weight the model cannot give, a scalar with no\n"
    "definition in wrapper.cpp), and what was written is removed but the session.\n"
    "\n"
    "Exit codes: 0 the repro was written; 1 the checklist failed, the run was\n"
    "interrupted or the runner died before the launch; 2 bad usage, bad input, a\n"
    "launch that never came or one that cannot be captured.\n";

static const char replay_about[] =
    "Opens a recorded session (from `aotidbg run --record` or a walkthrough) with no\n"
    "GPU and no torch. With --dump, prints a plain-text rendering to stdout instead\n"
    "of opening the screen: header, checklist, then one block per event (kernels with\n"
    "their tensors' shape, dtype and statistics; errors; outputs; how the runner\n"
    "ended).\n"
    "\n"
    "A file cut off while it was being recorded still opens: every complete event is\n"
    "shown and a notice on stderr says where it was cut.\n"
    "\n"
    "Several files (OUT.rank0.yaml OUT.rank1.yaml ..., the ranks of one run --ranks N)\n"
    "open together: the ranks strip shows every rank side by side, { } or :rank K\n"
    "switch the rank shown; --dump prints each rank in rank order, then the kernels\n"
    "side by side and where each rank ended (and whom it waited for).\n";
static const char replay_after[] =
    "Exit codes: 0 shown, 2 bad usage or a file that does not load (the message names\n"
    "file:line:col). The format is described in aotidbg-session(5).\n";

static const char check_about[] =
    "Checks, before anything runs, that PKG (a .pt2 package or a bare model .so) fits\n"
    "this machine and the inputs: compile vs load device, CUDA driver, GPU index and\n"
    "compute capability, CPU ISA, every input's dtype/device/rank/dims/strides\n"
    "against what the package was compiled for (and each `fill: file` input's file),\n"
    "package integrity (.so, cubins, weights, custom ops, libtorch symbols) and the\n"
    "debug flags in effect.\n";
static const char check_after[] =
    "Exit codes: 0 nothing failed, 1 a check failed, 2 bad usage or bad input (an\n"
    "unreadable package, or one whose .so does not match its CRC-32).\n";

static const char route_about[] =
    "Names the cause of an AOTI error from its text (a log file, or stdin with - or\n"
    "no FILE): the route, the facts pulled out of the text (kernel, tmpN, ksM, input\n"
    "index, expected/got, devices, symbol, op schema, missing file), the next steps\n"
    "and the actions aotidbg can run for them.\n";
static const char route_after[] =
    "The advice fits the run's platform (cuda, rocm, xpu, mps, cpu), taken from the\n"
    "session or package when given, else from the text; a CPU run gets no CUDA\n"
    "advice. When nothing matches (route unknown), the error-like lines read are\n"
    "listed.\n"
    "\n"
    "Routes (ROUTES in aotidbg(1) says what each means):"
    ROUTE_IDS(ROUTE_NAME_LINE) "\n"
    "\n"
    "Exit: 0 routed (also to unknown), 2 bad usage or unreadable input.\n";

static const char info_about[] =
    "Shows what a .pt2 package (or a bare model .so) holds: models, compile device,\n"
    "compute capability, CPU ISA, the .so, wrapper.cpp, cubins, weights, and the\n"
    "compiled inputs (dtype, shape with dynamic bounds), printer level and kernels.\n"
    "It reads the archive's directory and small entries only, whatever the size.\n";
static const char info_after[] =
    "Exit codes: 0 shown, 2 bad usage or an unreadable package.\n";

static const char export_about[] =
    "Writes a recorded session as a timeline or a table: --format chrome-trace (the\n"
    "default) is the Trace Event Format that Perfetto (ui.perfetto.dev) and\n"
    "chrome://tracing open: a slice per kernel (before to after hook) with its device\n"
    "time on a track of its own, aotidbg's hooks between kernels on another,\n"
    "torch.cond/while_loop branch runs, and errors, NaN/Inf, departures from eager\n"
    "and how the runner ended as instant events. --format csv is one row per kernel\n"
    "event: index, name, kind, status, branch, times, estimated bytes read and\n"
    "written, achieved GB/s and NaN/Inf counts.\n";
static const char export_after[] =
    "Bytes are estimated from the tensors' shapes (read: before-tensors the kernel does\n"
    "not write first; written: after-tensors that changed); GB/s only where the\n"
    "session has the kernel's device time.\n"
    "\n"
    "Exit codes: 0 written, 1 the output could not be written (FILE is left as it\n"
    "was), 2 bad usage or a session that does not load.\n";

static const char tutorial_about[] =
    "Guided walkthroughs: real recorded sessions with narration. With no NAME, a\n"
    "menu. NAME live-demo steps through the bundled CPU model live; it is compiled on\n"
    "first use (python3 and torch needed) into $XDG_CACHE_HOME/aotidbg/demo (else\n"
    "~/.cache/aotidbg/demo).\n";

/* One row per command; the UI's rows have no handler (the front end's). */
static const command commands[] = {
    {NULL, "live", "PKG.pt2 [--inputs SPEC] [--device DEV] [--record PATH]\n"
     "        [run options] [UI options]",
     "live debugging in the full-screen UI", live_about, live_after, "PKG.pt2", 1, 1,
     {{run_option_specs, offsetof(cli_args, run), RUN_OPT_LIVE, "run options (as for aotidbg run)"},
      G_UI(UI_OPT_LIVE)},
     NULL, "live"},
    {"run", "run", "run PKG [--inputs SPEC] [--device DEV]\n"
     "            [--break-on error|nan|diverge|kernel=NAME[@K]|\n"
     "                        iteration=K|index=N] [options]\n"
     "            --record OUT.yaml",
     "headless run, for CI and remote boxes", run_about, run_after, "PKG", 1, 1, {G_RUN(RUN_OPT_RUN)}, cmd_run, NULL},
    {"repro", "repro", "repro PKG --kernel N|NAME[@K] -o DIR [--inputs SPEC] [--device DEV]\n"
     "              [--model NAME] [--timeout S] [--force]",
     "one kernel launch as a standalone folder that rebuilds and checks it", repro_about, repro_after, "PKG", 1, 1,
     {G_RUN(RUN_OPT_REPRO), {repro_option_specs, offsetof(cli_args, repro), 0, NULL}}, cmd_repro, NULL},
    {"replay", "replay", "replay SESSION.yaml [RANK.yaml ...] [--dump] [UI options]",
     "open a saved session (no torch, no GPU); --dump prints it as text", replay_about, replay_after,
     "SESSION.yaml", 1, RUN_MAX_RANKS,
     {{replay_option_specs, offsetof(cli_args, replay), 0, NULL}, G_UI(UI_OPT_REPLAY)}, cmd_replay, "replay"},
    {"check", "check", "check PKG [--inputs SPEC] [--device DEV] [--format text|yaml]\n"
     "              [--remote [USER@]HOST[:PORT] [--push]\n"
     "              [--remote-runner PATH]] [options]",
     "the device/shape checklist", check_about, check_after, "PKG", 1, 1,
     {G_RUN(RUN_OPT_CHECK), {check_option_specs, offsetof(cli_args, check), 0, NULL}}, cmd_check, NULL},
    {"route", "route", "route [FILE|-] [--package PKG] [--session S.yaml]\n"
     "              [--format text|yaml] [--rules FILE]",
     "name the error route of any log text or session", route_about, route_after, "FILE", 0, 1,
     {{route_option_specs, offsetof(cli_args, route), 0, NULL}}, cmd_route, NULL},
    {"info", "info", "info PKG [--model NAME] [--calls] [--sha256]", "what the package holds", info_about,
     info_after, "PKG", 1, 1,
     {G_RUN(RUN_OPT_INFO), {info_option_specs, offsetof(cli_args, info), 0, NULL}}, cmd_info, NULL},
    {"export", "export", "export SESSION.yaml [--format chrome-trace|csv] [-o FILE]",
     "a session as a chrome trace (Perfetto) or CSV", export_about, export_after, "SESSION.yaml", 1, 1,
     {{export_option_specs, offsetof(cli_args, exp), 0, NULL}}, cmd_export, NULL},
    {"tutorial", "tutorial", "tutorial [--list|NAME] [UI options]",
     "guided walkthroughs of real recorded failures", tutorial_about, NULL, "NAME", 0, 1,
     {G_UI(UI_OPT_TUTORIAL)}, NULL, "tutorial"},
    {NULL, NULL},
};

static const command *command_find(const char *name)
{
    for (const command *c = commands; c->label; c++)
        if (!strcmp(c->label, name) && (c->name || !strcmp(name, "live")))
            return c;
    return NULL;
}

static size_t ngroups(const command *c)
{
    size_t n = 0;
    while (n < CLI_MAX_GROUPS && c->groups[n].specs)
        n++;
    return n;
}

/* ---- help ------------------------------------------------------------------ */

/* The synopsis after "usage: aotidbg " or "       aotidbg ": its continuation
 * lines are indented for that. */
static void add_synopsis(strbuf *h, const char *syn)
{
    for (const char *p = syn; *p; p++) {
        strbuf_addch(h, *p);
        if (*p == '\n')
            strbuf_addstr(h, "       ");
    }
    strbuf_addch(h, '\n');
}

static void command_help(const command *c, FILE *f)
{
    strbuf h = STRBUF_INIT;
    strbuf_addstr(&h, "usage: aotidbg ");
    add_synopsis(&h, c->synopsis);
    if (c->about)
        strbuf_addf(&h, "\n%s", c->about);
    for (size_t i = 0; i < ngroups(c); i++) {
        const opt_group *g = &c->groups[i];
        strbuf_addf(&h, "\n%s%s", g->title ? g->title : "", g->title ? ":\n" : "");
        opt_help(&h, g, 1);
    }
    if (c->after)
        strbuf_addf(&h, "\n%s", c->after);
    fputs(h.buf, f);
    strbuf_release(&h);
}

static void global_help(FILE *f)
{
    strbuf h = STRBUF_INIT;
    for (const command *c = commands; c->label; c++) {
        strbuf_addstr(&h, c == commands ? "usage: aotidbg " : "       aotidbg ");
        add_synopsis(&h, c->synopsis);
    }
    fputs(h.buf, f);
    strbuf_release(&h);
    fputs("       aotidbg --list-actions | --list-options | --version | --help\n\nCommands:\n", f);
    for (const command *c = commands; c->label; c++)
        fprintf(f, "  %-9s %s\n", c->name ? c->name : "PKG.pt2", c->summary);
    fputs("\nWith no arguments, opens the tutorial menu. `aotidbg COMMAND --help` describes a\n"
          "command; man aotidbg has the whole manual.\n"
          "Exit codes: 0 success, 1 the model or a check failed, 2 bad usage or bad input.\n", f);
}

/* Every option of every command, one a line: command, option, argument,
 * the first line of its help (tests/integration/test_manual.py reads it). */
static int list_options(FILE *f)
{
    for (const command *c = commands; c->label; c++)
        for (size_t i = 0; i < ngroups(c); i++)
            for (const opt_spec *o = c->groups[i].specs; o->name; o++) {
                if (!opt_applies(o, c->groups[i].scope))
                    continue;
                const char *h = o->help ? o->help : "";
                fprintf(f, "%s\t%s\t%s\t%.*s\n", c->label, o->name, o->arg ? o->arg : "", (int)strcspn(h, "\n"), h);
            }
    return EXIT_OK;
}

/* ---- dispatch ---------------------------------------------------------------- */

static void defaults(cli_args *a, const command *c)
{
    memset(a, 0, sizeof *a);
    a->cmd = c;
    run_options_init(&a->run, c->ui_mode && !strcmp(c->ui_mode, "live") ? RUN_OPT_LIVE : RUN_OPT_RUN);
    a->check.format = "text";
    a->route.format = "text";
}

static int run_command(const command *c, int argc, char **argv, int first, const cli_front *front)
{
    cli_args a;
    defaults(&a, c);
    a.front = front;
    strbuf err = STRBUF_INIT;
    int r = opt_parse(c->groups, ngroups(c), &a, argc, argv, first, a.pos, (size_t)c->max_pos, &a.npos, &err);
    if (r == OPT_HELP) {
        strbuf_release(&err);
        command_help(c, stdout);
        return EXIT_OK;
    }
    if (r == OPT_ERR) {
        cli_usage_error(c, "%s", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    strbuf_release(&err);
    if ((int)a.npos < c->min_pos)
        return cli_usage_error(c, "missing %s", c->args);
    if (c->run && !c->ui_mode)   /* no screen: every print of untrusted text is escaped (term_escape.h) */
        term_guard_stdio();
    else   /* the screen owns stdout; what the UI says on stderr is escaped */
        term_guard_stderr();
    if (c->run)
        return c->run(&a);
    return front && front->ui ? front->ui(&a) : EXIT_USAGE;
}

int cli_main(int argc, char **argv, const cli_front *front)
{
    if (argc < 2)
        return run_command(command_find("tutorial"), argc, argv, 1, front);
    const char *a1 = argv[1];
    if (!strcmp(a1, "--help") || !strcmp(a1, "-h") || !strcmp(a1, "help")) {
        const command *c = argc > 2 ? command_find(argv[2]) : NULL;   /* aotidbg help run */
        if (c)
            command_help(c, stdout);
        else
            global_help(stdout);
        return EXIT_OK;
    }
    if (!strcmp(a1, "--version") || !strcmp(a1, "-V")) {
        printf("aotidbg %s (session format %d.%d)\n", AOTIDBG_VERSION, SESSION_FORMAT_MAJOR, SESSION_FORMAT_MINOR);
        return EXIT_OK;
    }
    if (!strcmp(a1, "--list-actions"))   /* the action table, for scripts and the man page check */
        return front && front->list_actions ? front->list_actions(stdout) : EXIT_USAGE;
    if (!strcmp(a1, "--list-options"))
        return list_options(stdout);
    const command *c = NULL;
    for (const command *k = commands; k->label && !c; k++)
        if (k->name && !strcmp(k->name, a1))
            c = k;
    if (c)
        return run_command(c, argc, argv, 2, front);
    /* anything else is a package to debug live (its options may come first) */
    return run_command(command_find("live"), argc, argv, 1, front);
}
