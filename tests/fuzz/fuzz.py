#!/usr/bin/env python3
"""Fuzzes ctrl with hostile but fixed-seed input (issue 26).

    fuzz.py KIND CTRL SAMPLES_DIR WORKDIR [--cases N] [--seed S] [--jobs J]

KIND is one of
  cmdline   command lines mutated from a corpus of valid ones
  trace     trace files: mutated bytes, and checksum-valid edits of the
            protobuf payload (header: "CTRLTRC1", le64 length, le64 FNV-1a
            64 of the payload: controller/reports/TraceFile.cpp)
  batch     --batch scripts for the stepping prompt
  gdb       RSP packets to `ctrl attach --gdb 0`, many per ctrl process
  programs  unusual programs, each under option sets drawn at random: static,
            32-bit, a shared library, a #! script, a file of shell commands,
            the shell running a script, set-user-ID copies (ctrl's user's
            and, as root, nobody's), an exit from a signal handler while main
            is in pause(), 200 threads, PTRACE_TRACEME, ctrl itself under
            `strace -f`, an empty file, a directory, a FIFO, a symlink loop,
            no execute permission, a truncated ELF, an ELF for AArch64

Every case asserts: ctrl does not exit 3 (internal error), is not killed by
a signal, ends within its timeout, exits with a documented status (0, 1 or
2; the programs kind names the one each program gets), says a refusal
(exit 2) in one line on stderr (notes and warnings aside), leaves no
process behind (none of the case's program copies, found by name; none in
the case's session; none re-parented to this script, a child subreaper),
and leaves no empty file, empty directory or `.ctrl-*` file in its working
directory. No exit 3 is expected: an edited trace that the program does not
follow is refused as bad input (exit 2), as any other.
"""
import argparse
import os
import random
import re
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from ctrl_trace import pack, packed, parse, seal, serialise  # noqa: E402

CASE_TIMEOUT = 30.0


class Fuzz:
    def __init__(self, args):
        self.ctrl = os.path.abspath(args.ctrl)
        self.samples = os.path.abspath(args.samples)
        self.work = os.path.abspath(args.workdir)
        self.rng = random.Random(args.seed)
        self.failures = []
        self.live = set()  # pids of the processes this run started and still waits for
        self.lock = threading.Lock()
        self.count = 0
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        # One copy of each program under a unique name per run: pgrep -x
        # finds what a case left running.
        self.tag = "fz%d" % (os.getpid() % 100000)
        self.programs = {}
        for name in ("mutex_counter", "deadlock_lock_order", "lost_update_plain", "exit_from_handler"):
            src = os.path.join(self.samples, name)
            if not os.path.exists(src):
                continue
            short = self.tag + name[:6]
            dst = os.path.join(self.work, short)
            shutil.copy(src, dst)
            os.chmod(dst, 0o755)
            self.programs[name] = dst

    def copy(self, name, where):
        """A copy of sample `name` in `where` under a name no other case
        uses (cases run in parallel: pgrep -x must find this case's only)."""
        with self.lock:
            self.copies = getattr(self, "copies", 0) + 1
            n = self.copies
        dst = os.path.join(where, "%s%s%d" % (self.tag[:7], name[:2], n))
        shutil.copy(self.programs[name], dst)
        os.chmod(dst, 0o755)
        return dst

    # ---- running one case ----
    def spawn(self, argv, **kw):
        """Popen in a session of its own (its id is the child's pid: what the
        case leaves in it is found by session), registered as a live child so
        that the orphan scan tells it from what a case left behind."""
        with self.lock:
            p = subprocess.Popen(argv, start_new_session=True, **kw)
            self.live.add(p.pid)
        return p

    def ended(self, p):
        with self.lock:
            self.live.discard(p.pid)

    def run(self, label, argv, cwd=None, stdin=None, timeout=CASE_TIMEOUT, ok=(0, 1, 2), names=None, words=None,
            one_line=False, says=None, why=True):
        case = cwd or os.path.join(self.work, "case")
        os.makedirs(case, exist_ok=True)
        before = set(os.listdir(case))
        start = time.time()
        p = self.spawn(argv, cwd=case, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _, err = p.communicate(stdin or b"", timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            _, err = p.communicate()
            rc = "timeout"
        self.ended(p)
        err = (err or b"").decode(errors="replace")
        self.check(label, argv, rc, err, time.time() - start, case, before, names, sid=p.pid, ok=ok, words=words,
                   one_line=one_line, says=says, why=why)
        return rc, err

    def check(self, label, argv, rc, err, took, case, before, names=None, sid=None, ok=(0, 1, 2), words=None,
              one_line=False, says=None, why=True):
        problems = []
        if rc == "timeout":
            problems.append("no end within %.0f s (hang)" % CASE_TIMEOUT)
            self.kill_left(names)
        elif rc < 0:
            problems.append("killed by signal %d (crash)" % -rc)
        elif rc == 3:
            problems.append("exit 3 (internal error)")
        elif rc not in (0, 1, 2):
            problems.append("exit status %d" % rc)
        elif rc not in ok:
            problems.append("exit %d, documented: %s" % (rc, " or ".join(map(str, ok))))
        if rc == 2 and why:
            # Exit 2 ends with one line saying why ("ctrl: WHAT"); a refusal
            # (nothing ran) is that line alone, notes and warnings aside.
            lines = [x for x in err.splitlines()
                     if x.strip() and not x.startswith(("ctrl: note:", "ctrl: warning:"))]
            if not lines or not lines[-1].startswith("ctrl: "):
                problems.append("exit 2 without a last line saying why")
            elif one_line and len(lines) != 1:
                problems.append("exit 2 with %d lines on stderr, not one" % len(lines))
            elif words and not re.search(words, lines[-1]):
                problems.append("exit 2 without /%s/" % words)
        if says and not re.search(says, err):
            problems.append("stderr does not say /%s/" % says)
        left = self.left_processes(names, sid)
        if left:
            problems.append("processes left: " + " ".join(left))
            self.kill_left(names, sid)
        for entry in set(os.listdir(case)) - before:
            path = os.path.join(case, entry)
            if entry.startswith(".ctrl-"):
                problems.append("left file " + entry)
            elif os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path):
                problems.append("left empty directory " + entry)
            elif os.path.isfile(path) and os.path.getsize(path) == 0:
                problems.append("left empty file " + entry)
        with self.lock:
            self.count += 1
            self.slowest = sorted(getattr(self, "slowest", []) + [(round(took, 1), label)], reverse=True)[:3]
            if problems:
                self.failures.append((label, argv, problems, err.strip().splitlines()[-3:]))

    @staticmethod
    def processes():
        """(pid, name, state, ppid, session) of every process, from /proc
        (not pgrep: a child this script did not start through spawn() is
        taken for what a case left, see orphans())."""
        out = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                st = open("/proc/%s/stat" % d).read()
            except OSError:
                continue
            rest = st[st.rindex(")") + 2:].split()
            out.append((int(d), st[st.index("(") + 1:st.rindex(")")], rest[0], int(rest[1]), int(rest[3])))
        return out

    def left(self, names, sid):
        """Live processes named as one of `names` (the program copies of the
        case), in session `sid` (the program's processes stay in the case's
        session unless they call setsid), or re-parented to this script (a
        child subreaper, see main: whatever a case left, setsid or not). Those
        of the last kind that ended already are reaped here. A process in the
        session of another case still running is that case's (found by name,
        or orphaned: a program that forks and exits runs on in its child while
        its ctrl runs), and so is one in a session of its own (setsid,
        daemon(3)) while another case runs: only its own case's check blames
        it, or the sweep after the last case (main)."""
        found = []
        short = {n[:15] for n in names}
        with self.lock:
            for pid, name, state, ppid, session in self.processes():
                others = session != sid and (session in self.live or (session == pid and bool(self.live)))
                if ppid == os.getpid() and pid not in self.live:
                    if state == "Z":
                        try:
                            os.waitpid(pid, 0)
                        except ChildProcessError:
                            pass
                        continue
                    if not others:
                        found.append((pid, "%s:%d (orphan)" % (name, pid)))
                elif state != "Z" and not others and (name in short or (sid and session == sid)):
                    found.append((pid, "%s:%d" % (name, pid)))
        return found

    def left_processes(self, names=None, sid=None):
        names = names or [os.path.basename(p) for p in self.programs.values()]
        # What ctrl leaves ends by itself as ctrl exits (EXITKILL, the
        # parent-death signal, the fork server's own stop): moments, longer
        # on a loaded machine. Still there after 5 s: left.
        for _ in range(100):
            found = self.left(names, sid)
            if not found:
                return []
            time.sleep(0.05)
        return [what for _, what in found]

    def kill_left(self, names=None, sid=None):
        names = names or [os.path.basename(p) for p in self.programs.values()]
        for pid, _ in self.left(names, sid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def parallel(self, jobs, cases):
        """Runs callables `cases` on `jobs` threads."""
        it = iter(cases)
        it_lock = threading.Lock()

        def worker():
            while True:
                with it_lock:
                    c = next(it, None)
                if c is None:
                    return
                c()

        ts = [threading.Thread(target=worker) for _ in range(jobs)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    # ---- mutation helpers ----
    def mutate_tokens(self, rng, tokens, pool):
        t = list(tokens)
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(6)
            i = rng.randrange(len(t) + 1)
            if op == 0 and t:
                del t[min(i, len(t) - 1)]
            elif op == 1:
                t.insert(i, rng.choice(pool))
            elif op == 2 and t:
                j = min(i, len(t) - 1)
                t[j] = rng.choice(pool)
            elif op == 3 and len(t) > 1:
                j, k = rng.randrange(len(t)), rng.randrange(len(t))
                t[j], t[k] = t[k], t[j]
            elif op == 4 and t:
                j = min(i, len(t) - 1)
                s = t[j]
                if s:
                    c = rng.randrange(len(s))
                    s = s[:c] + rng.choice(["", "0", "-", "=", "x", "\x01", "9" * 20, " "]) + s[c + 1:]
                t[j] = s
            else:
                t.insert(i, rng.choice(["-1", "0", "18446744073709551616", "1e9", "nan", "", "--", "%s", "é"]))
        return t


NUMS = ["0", "1", "2", "-1", "3", "99999999999999999999", "0x10", "1.5", "abc", ""]


def kind_cmdline(f, cases, jobs):
    prog = f.programs["mutex_counter"]
    bug = f.programs["deadlock_lock_order"]
    corpus = [
        ["attach", prog],
        ["attach", "--strategy", "random", "--seed", "3", "--max-executions", "5", prog],
        ["attach", "--strategy", "pct", "--pct-depth", "2", "--max-executions", "5", prog],
        ["attach", "--max-executions", "3", "--model", "tso", prog],
        ["attach", "--visible", "atomics", "--max-executions", "3", prog],
        ["attach", "--time-limit", "1", "--max-steps", "1000", prog],
        ["attach", "--json", "r.json", "--trace-dir", "tr", "--max-executions", "3", bug],
        ["attach", "--keep-going", "--no-shrink", "--max-executions", "4", bug],
        ["attach", "--hang-timeout", "1", "--max-executions", "2", prog],
        ["attach", "--races", "all", "--max-executions", "3", prog],
        ["attach", "--fail-on-exit", "nonzero", "--max-executions", "3", prog],
        ["attach", "-j", "2", "--max-executions", "4", prog],
        ["attach", "--equivalence", "rf", "--max-executions", "3", prog],
        ["replay", "missing.ctrltrace"],
        ["--version"],
        ["attach", "--help"],
    ]
    pool = ["--strategy", "random", "dpor", "pct", "--seed", "--max-executions", "--model", "sc", "tso", "pso",
            "c11", "--visible", "all", "atomics", "--json", "/dev/full", "/", "--trace-dir", "/proc", "--batch",
            "/dev/null", "--gdb", "--instrument", "libc.so.6", "libm.so.6", "--time-limit", "--max-steps",
            "--hang-timeout", "-j", "--races", "off", "--keep-going", "--no-rollback", "--show-output", "--",
            "--dpor", "optimal", "--preemption-bound", "--fail-on-exit", "--limit-exit", "--sarif", "--junit",
            "--equivalence", "rf", "--interactive", prog, bug, "/bin/true", "/nonexistent", "."] + NUMS
    # Runs that explore are bounded: every case gets a limit it cannot lift.
    rng = f.rng
    made = []
    for n in range(cases):
        base = rng.choice(corpus)
        argv = f.mutate_tokens(rng, base, pool)
        if "--interactive" in argv or "--gdb" in argv:
            argv = [a for a in argv if a not in ("--interactive", "--gdb")]
        if argv[:1] == ["attach"]:
            argv = ["attach", "--time-limit", "1", "--max-executions", "3"] + argv[1:]
        made.append((n, argv))

    def case(n, argv):
        d = os.path.join(f.work, "cmd%d" % n)
        os.makedirs(d)
        mine = {prog: f.copy("mutex_counter", d), bug: f.copy("deadlock_lock_order", d)}
        argv = [mine.get(a, a) for a in argv]
        f.run("cmdline #%d" % n, [f.ctrl] + argv, cwd=d, stdin=b"",
              names=[os.path.basename(x) for x in mine.values()])

    f.parallel(jobs, [lambda n=n, a=a: case(n, a) for n, a in made])


def edit_steps(rng, payload):
    """A checksum-valid edit of what only the replay can check (protocol/
    trace.proto): a step's site, address or size (Trace.signatures = 8), or
    two decisions swapped (Trace.decisions = 7, packed). The program then
    does not do what the trace says: the replay diverges (exit 2)."""
    top = parse(payload)
    sigs = [f for f in top if f[0] == 8 and f[1] == 2]
    decisions = next((f for f in top if f[0] == 7 and f[1] == 2), None)
    if decisions is not None and rng.random() < 0.3:
        values = packed(decisions[2])
        pairs = [k for k in range(len(values) - 1) if values[k] != values[k + 1]]
        if pairs:
            k = rng.choice(pairs)
            values[k], values[k + 1] = values[k + 1], values[k]
            decisions[2] = pack(values)
            return serialise(top)
    if not sigs:
        return payload
    sig = rng.choice(sigs)
    sub = parse(sig[2])
    number = rng.choice([3, 4, 6])
    field = next((x for x in sub if x[0] == number), None)
    if field is None:
        sub.append([number, 0, rng.randrange(1, 1 << 20)])
    else:
        field[2] = rng.choice([field[2] + rng.choice([-8, -1, 1, 4, 8, 64]), rng.randrange(1 << 48), 0]) & ((1 << 64) - 1)
    sig[2] = serialise(sub)
    return serialise(top)


def kind_trace(f, cases, jobs):
    # Traces to mutate: a deadlock's and a lost update's, recorded here.
    seeds = []
    names = []
    for name in ("deadlock_lock_order", "lost_update_plain"):
        d = os.path.join(f.work, "rec-" + name)
        os.makedirs(d)
        subprocess.run([f.ctrl, "attach", "--trace-dir", "tr", f.programs[name]], cwd=d, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        for t in sorted(os.listdir(os.path.join(d, "tr")))[:1]:
            seeds.append(open(os.path.join(d, "tr", t), "rb").read())
            names.append(name)
    if not seeds:
        f.failures.append(("trace", [], ["no trace recorded to mutate"], []))
        return
    rng = f.rng
    made = []
    for n in range(cases):
        pick = n % len(seeds)
        data = bytearray(seeds[pick])
        payload = bytearray(data[24:])
        # A quarter keep a valid checksum: they get to replay (slower). Half
        # of those are edits of what a replay alone can check (the steps).
        valid = n % 4 == 0
        if valid and n % 8 == 4:
            out = seal(edit_steps(rng, bytes(payload)))
        elif valid:
            for _ in range(rng.randint(1, 4)):
                op = rng.randrange(4)
                i = rng.randrange(len(payload))
                if op == 0:
                    payload[i] = rng.randrange(256)
                elif op == 1:
                    payload[i] ^= 1 << rng.randrange(8)
                elif op == 2:
                    del payload[i:i + rng.randint(1, 8)]
                else:
                    payload[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            out = seal(bytes(payload))
        else:
            op = rng.randrange(4)
            if op == 0:
                for _ in range(rng.randint(1, 8)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
            elif op == 1:
                data = data[:rng.randrange(len(data))]
            elif op == 2:
                data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
            else:
                i = rng.randrange(24)
                data[i] = rng.randrange(256)
            out = bytes(data)
        made.append((n, out, valid, pick))

    def case(n, out, valid, pick):
        d = os.path.join(f.work, "tr%d" % n)
        os.makedirs(d)
        with open(os.path.join(d, "t.ctrltrace"), "wb") as fh:
            fh.write(out)
        # The recorded program, copied under this case's own name.
        mine = f.copy(names[pick], d) if valid else None
        # Mutated bytes are refused before anything runs: one line. An edit
        # that keeps the checksum replays, is refused, or diverges (exit 2,
        # "replay diverged at step N": the trace is bad input).
        rc, err = f.run("trace #%d (%s)" % (n, "checksum-valid edit" if valid else "mutated bytes"),
                        [f.ctrl, "replay"] + (["--program", mine] if mine else []) + ["t.ctrltrace"], cwd=d,
                        stdin=b"", timeout=CASE_TIMEOUT, names=[os.path.basename(mine)] if mine else ["-none-"],
                        one_line=not valid)
        with f.lock:
            key = "replayed" if rc in (0, 1) else "diverged" if "replay diverged" in err else "refused"
            outcomes[(valid, key)] = outcomes.get((valid, key), 0) + 1

    outcomes = {}

    f.parallel(jobs, [lambda n=n, o=o, v=v, k=k: case(n, o, v, k) for n, o, v, k in made])
    print("checksum-valid edits: %d replayed, %d refused, %d diverged; mutated bytes: %d refused" % (
        outcomes.get((True, "replayed"), 0), outcomes.get((True, "refused"), 0), outcomes.get((True, "diverged"), 0),
        outcomes.get((False, "refused"), 0)))


BATCH_WORDS = ["threads", "info threads", "buffers", "step", "s", "next", "n", "continue", "c", "back", "goto",
               "break", "b", "watch", "delete", "d", "info breakpoints", "bt", "bt all", "regs", "print", "p",
               "x/4xg", "x/s", "checkpoint", "info checkpoints", "restart", "schedule", "save", "explore",
               "time", "help", "quit", "frobnicate", ""]
BATCH_ARGS = ["", "0", "1", "3", "100", "-1", "T0", "T1", "T9", "F0", "main", "worker", "counter", "&counter",
              "*counter", "counter[99999]", "0x0", "0xffffffffffffffff", "mutex_counter.c:10", "/dev/full",
              "/nonexistent/dir/x", "s.ctrltrace", "--strategy random --max-executions 3", "--time-limit 1",
              "--max-executions 0", "--trace-dir /proc", "999999999999999999999", "next 2"]


def kind_batch(f, cases, jobs):
    # Several cases (mutated command sequences) per ctrl process, one after
    # the other in one script: a bad command costs a line, not a process.
    prog = f.programs["mutex_counter"]
    rng = f.rng
    per = 10
    made = []
    for n in range((cases + per - 1) // per):
        lines = []
        for _ in range(per):
            for _ in range(rng.randint(1, 6)):
                w = rng.choice([x for x in BATCH_WORDS if x not in ("quit", "q")])
                a = rng.choice(BATCH_ARGS) if rng.random() < 0.6 else ""
                lines.append((w + " " + a).strip())
        if rng.random() < 0.8:
            lines.append("quit")
        made.append((n, "\n".join(lines) + "\n"))

    def case(n, script):
        d = os.path.join(f.work, "b%d" % n)
        os.makedirs(d)
        with open(os.path.join(d, "s.batch"), "w") as fh:
            fh.write(script)
        mine = f.copy("mutex_counter", d)
        # A bad command is an "error: ..." line of the prompt's (stdout),
        # and the script's exit status 2 at its end.
        f.run("batch script #%d (%d cases) %r" % (n, per, script), [f.ctrl, "attach", "--batch", "s.batch", mine],
              cwd=d, stdin=b"", names=[os.path.basename(mine)], why=False)
        with f.lock:
            f.count += per - 1

    f.parallel(jobs, [lambda n=n, s=s: case(n, s) for n, s in made])


def rsp(body):
    return b"$" + body + b"#%02x" % (sum(body) & 0xFF)


GDB_PACKETS = [b"?", b"g", b"G00", b"m0,8", b"m400000,4", b"mffffffffffffffff,10", b"M0,1:00", b"c", b"s", b"bc",
               b"bs", b"vCont?", b"vCont;c", b"vCont;s:1", b"Hg0", b"Hg1", b"Hc-1", b"Hgffff", b"T1", b"T99",
               b"qfThreadInfo", b"qsThreadInfo", b"qC", b"qAttached", b"qSupported:multiprocess+", b"qOffsets",
               b"qXfer:features:read:target.xml:0,fff", b"qXfer:threads:read::0,fff", b"Z0,401000,1",
               b"z0,401000,1", b"Z2,0,8", b"p10", b"P10=00", b"qRcmd,68656c70", b"qRcmd,7468726561647",
               b"qRcmd,736176652f6465762f66756c6c", b"vKill;1", b"D", b"X0,0:", b"x0,0", b"", b"qL", b"vMustReplyEmpty"]


def kind_gdb(f, cases, jobs):
    prog = f.programs["mutex_counter"]
    rng = f.rng
    per = 25  # packets per ctrl process
    batches = []
    for b in range((cases + per - 1) // per):
        pk = []
        for _ in range(per):
            p = bytearray(rng.choice(GDB_PACKETS))
            if rng.random() < 0.5 and p:
                for _ in range(rng.randint(1, 3)):
                    i = rng.randrange(len(p) + 1)
                    op = rng.randrange(3)
                    if op == 0 and i < len(p):
                        p[i] = rng.choice(b"0123456789abcdef,;:$#}*xXZ")
                    elif op == 1:
                        p[i:i] = bytes([rng.randrange(32, 127)])
                    elif i < len(p):
                        del p[i]
            raw = rsp(bytes(p)) if rng.random() < 0.9 else bytes(rng.randrange(256) for _ in range(rng.randint(1, 30)))
            pk.append(raw)
        batches.append((b, pk))

    def session(b, packets):
        d = os.path.join(f.work, "g%d" % b)
        os.makedirs(d)
        mine = f.copy("mutex_counter", d)
        argv = [f.ctrl, "attach", "--gdb", "0", mine]
        before = set(os.listdir(d))
        err_path = os.path.join(d, "..", "g%d.err" % b)
        err_fh = open(err_path, "wb")
        start = time.time()
        p = f.spawn(argv, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err_fh)
        port = None
        while time.time() - start < 20 and p.poll() is None:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(err_path, errors="replace").read())
            if m:
                port = int(m.group(1))
                break
            time.sleep(0.05)
        sent = 0
        if port:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.settimeout(0.5)  # a reply not come by then (a packet ignored, or c running) is not waited for
                for raw in packets:
                    try:
                        s.sendall(raw)
                        s.recv(65536)
                    except socket.timeout:
                        pass
                    sent += 1
                s.close()
            except OSError:
                pass
        # What was not sent (ctrl ended the connection) still counts as cases
        # of this session: ctrl was judged on all it got.
        try:
            rc = p.wait(timeout=CASE_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = "timeout"
        f.ended(p)
        err_fh.close()
        err = open(err_path, errors="replace").read()
        f.check("gdb session #%d (%d packets sent)" % (b, sent), argv, rc, err, time.time() - start, d, before,
                [os.path.basename(mine)], sid=p.pid)
        with f.lock:
            f.count += len(packets) - 1

    f.parallel(jobs, [lambda b=b, pk=pk: session(b, pk) for b, pk in batches])


PROGRAM_SOURCES = {
    # Two threads: what the runnable builds below run.
    "two": "#include <pthread.h>\nstatic int n;\nstatic void*w(void*a){n++;return a;}\n"
           "int main(void){pthread_t t;pthread_create(&t,0,w,0);n++;pthread_join(t,0);return 0;}\n",
    "thr200": "#include <pthread.h>\nstatic void*w(void*a){return a;}\n"
              "int main(void){pthread_t t[200];for(int i=0;i<200;i++)pthread_create(&t[i],0,w,0);"
              "for(int i=0;i<200;i++)pthread_join(t[i],0);return 0;}\n",
    # Asks to be traced by its parent (ctrl's fork server, which traces it
    # already): the call fails and the program goes on.
    "traceme": "#include <pthread.h>\n#include <sys/ptrace.h>\nstatic int n;\n"
               "static void*w(void*a){__atomic_fetch_add(&n,1,5);return a;}\n"
               "int main(void){ptrace(PTRACE_TRACEME,0,0,0);pthread_t t;pthread_create(&t,0,w,0);"
               "__atomic_fetch_add(&n,1,5);pthread_join(t,0);return n==2?0:1;}\n",
    "lib": "int f(int x){return x+1;}\n",
}


def build_programs(f, d):
    """The unusual programs: name -> (command, documented exit statuses,
    what the exit-2 line says (regex) or None). Those refused before they
    run are refused with exit 2 and one line; 200 threads and a script's
    exec are refused when they happen (README, Limits), exit 2; runnable ones
    end in 0 (2 when an option cut every execution, said in a last line)."""
    mc = f.programs["mutex_counter"]
    cc = shutil.which("cc") or shutil.which("gcc")
    progs = {}
    says = f.says = {}  # what stderr must say, whatever the status

    def write(name, data, mode=0o755):
        path = os.path.join(d, f.tag + name)
        with open(path, "wb") as fh:
            fh.write(data)
        os.chmod(path, mode)
        return path

    def build(name, source, extra):
        src = os.path.join(d, name + ".c")
        with open(src, "w") as fh:
            fh.write(PROGRAM_SOURCES[source])
        out = os.path.join(d, f.tag + name)
        r = subprocess.run([cc or "cc", "-O1", "-pthread", "-o", out, src] + extra, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if r.returncode != 0:
            f.failures.append(("build " + name, [cc or "cc"] + extra, ["cannot build the %s program (scripts/setup.sh "
                                                                       "installs gcc-multilib for -m32)" % name],
                               r.stdout.decode(errors="replace").splitlines()[-3:]))
            return None
        return out

    refused, ran = (2,), (0, 2)
    for name, source, extra, expect, words in (
            ("static", "two", ["-static"], refused, "statically linked"),
            ("m32", "two", ["-m32"], refused, "ELF for|32-bit"),
            ("thr200", "thr200", [], refused, "more than [0-9]+ threads|--max-steps"),
            ("traceme", "traceme", [], ran, None),
            ("lib", "lib", ["-shared", "-fPIC"], refused, "shared library|not an executable")):
        out = build(name, source, extra)
        if out:
            progs[name] = ([out], expect, words)
    # Scripts: a #! script is refused (its interpreter is the program); one
    # without #! is not an ELF file; the shell given a script runs it, and
    # the script's exec is refused as any execve (README, Limits).
    script = write("script", ("#!/bin/sh\nexec %s \"$@\"\n" % mc).encode())
    progs["hashbang"] = ([script], refused, "it is a script")
    progs["shellfile"] = ([write("shfile", ("exec %s\n" % mc).encode())], refused, "not an ELF file")
    progs["sh-script"] = (["/bin/sh", script], refused, "execve|--max-steps")
    # Set-user-ID: a copy owned by ctrl's user runs (ctrl says what it does);
    # as root, a set-user-ID copy owned by nobody runs as nobody without
    # ctrl's agent (the loader ignores LD_PRELOAD): refused, said.
    setuid = write("setuid", open(mc, "rb").read(), 0o755 | stat.S_ISUID)
    progs["setuid"] = ([setuid], ran, None)
    says["setuid"] = says["setuid-other"] = r"ctrl: note: .* is set-user-ID"
    if os.geteuid() == 0:
        other = write("suidnob", open(mc, "rb").read(), 0o755)
        os.chown(other, 65534, 65534)
        os.chmod(other, 0o755 | stat.S_ISUID | stat.S_ISGID)
        progs["setuid-other"] = ([other], refused, "without ctrl's agent|cannot be loaded")
    # Exits from a signal handler while main is in pause().
    if "exit_from_handler" in f.programs:
        progs["exit-from-handler"] = ([f.programs["exit_from_handler"]], ran, None)
    # Samples that leave the usual shape (samples/*.c say how): a daemon(3)
    # whose parent exits at once, a fork whose parent exits without
    # waiting, descriptors all closed, its own SIGTRAP handler, a crash in a
    # signal handler, a signal to the saved pid. Their bugs are bugs (1).
    for name, args in (("daemon_child", ["daemon"]), ("daemon_child", ["exit"]), ("close_all_fds", ["loop"]),
                       ("own_sigtrap", []), ("crash_in_handler", []), ("kill_saved_pid", [])):
        path = os.path.join(f.samples, name)
        if os.path.exists(path):
            progs["-".join([name] + args)] = ([path] + args, (0, 1, 2), None)
    # Files that are no program.
    progs["empty"] = ([write("empty", b"")], refused, "not an ELF file")
    progs["noexec"] = ([write("noexec", open(mc, "rb").read(), 0o644)], refused, "not executable")
    progs["directory"] = ([d], refused, "directory")
    progs["missing"] = ([os.path.join(d, "missing")], refused, "not found")
    elf = bytearray(open(mc, "rb").read())
    progs["truncated"] = ([write("trunc", bytes(elf[:100]))], refused, "malformed|truncated")
    elf[18:20] = struct.pack("<H", 183)  # e_machine: AArch64
    progs["aarch64"] = ([write("aarch64", bytes(elf))], refused, "ELF for")
    os.mkfifo(os.path.join(d, "fifo"))
    progs["fifo"] = ([os.path.join(d, "fifo")], refused, "not a regular file")
    os.symlink("loop", os.path.join(d, "loop"))
    progs["symlink-loop"] = ([os.path.join(d, "loop")], refused, "not found|cannot")
    return progs


PROGRAM_OPTIONS = [[], ["--strategy", "random", "--seed", "7"], ["--strategy", "pct", "--pct-depth", "2"],
                   ["--no-rollback"], ["--visible", "atomics"], ["--max-steps", "40"],
                   ["-j", "2"], ["--model", "tso"], ["--hang-timeout", "1"], ["--races", "all"], ["--keep-going"],
                   ["--fail-on-exit", "nonzero"], ["--no-shrink"], ["--json", "r.json"]]


def kind_programs(f, cases, jobs):
    # Unusual programs, each under a few option sets drawn from
    # PROGRAM_OPTIONS; one case in 25 runs ctrl itself under `strace -f`
    # (a tracer attached to ctrl and its program: refused, one line).
    d = os.path.join(f.work, "progs")
    os.makedirs(d)
    progs = build_programs(f, d)
    strace = shutil.which("strace")
    rng = f.rng
    names = sorted(progs)
    made = []
    for i in range(cases):
        name = names[i % len(names)]
        opts = sum(rng.sample(PROGRAM_OPTIONS, rng.randint(0, 2)), [])
        traced = strace is not None and i % 25 == 24
        made.append((i, name, opts, traced))

    def case(i, name, opts, traced):
        c = os.path.join(f.work, "p%d" % i)
        os.makedirs(c)
        command, ok, words = progs[name]
        argv = [f.ctrl, "attach", "--time-limit", "3", "--max-executions", "3"] + opts + command
        if traced:
            argv = [strace, "-f", "-o", "/dev/null"] + argv
            ok, words = (2,), "trac" + ("|" + words if words else "")
        # What is refused before it runs is refused in one line.
        f.run("program %s%s %s" % (name, " under strace -f" if traced else "", " ".join(opts)), argv, cwd=c,
              ok=ok, words=words, names=[n for n in map(os.path.basename, command) if n.startswith(f.tag)] or None,
              one_line=ok == (2,) and not traced and name not in ("thr200", "sh-script"),
              says=f.says.get(name))

    f.parallel(jobs, [lambda m=m: case(*m) for m in made])


KINDS = {"cmdline": kind_cmdline, "trace": kind_trace, "batch": kind_batch, "gdb": kind_gdb,
         "programs": kind_programs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=sorted(KINDS))
    ap.add_argument("ctrl")
    ap.add_argument("samples")
    ap.add_argument("workdir")
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    # A child subreaper: whatever a case leaves running (setsid or not) is
    # re-parented here once its ctrl ended, where Fuzz.left finds it.
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    f = Fuzz(args)
    start = time.time()
    KINDS[args.kind](f, args.cases, args.jobs)
    # Every case ended: what is left now was left by one of them, whichever
    # session it is in (a check that ran beside other cases skipped theirs).
    left = f.left_processes()
    if left:
        f.failures.append(("after the last case", [], ["processes left: " + " ".join(left)], []))
        f.kill_left()
    print("%s: %d cases (seed %d) in %.1f s" % (args.kind, f.count, args.seed, time.time() - start))
    print("slowest: " + "; ".join("%s s %s" % (t, label[:60]) for t, label in getattr(f, "slowest", [])))
    for label, argv, problems, err in f.failures:
        print("FAIL %s: %s" % (label, "; ".join(problems)))
        print("   command: %s" % " ".join(repr(a) if " " in a or not a else a for a in argv))
        for line in err:
            print("   stderr: %s" % line)
    if f.failures:
        print("%d of %d cases failed" % (len(f.failures), f.count))
        return 1
    if f.count < args.cases:
        print("only %d cases ran, %d asked for" % (f.count, args.cases))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
