#!/usr/bin/env python3
"""No way in for another user, traces safe (issue 26, items 2-5), end to end.

usage: check_security.py MODE CTRL WORKDIR PROGRAM

PROGRAM is a sample with a bug ctrl finds at once (deadlock_lock_order).

  trace    a trace is 0600 in a 0700 directory and holds no secret variable
           (FAKE_API_TOKEN, and one left out by --omit-env): attach says which
           it left out, the trace still replays.
  save     `save FILE` at the prompt and `monitor save FILE` from gdb write
           only new files: an existing file or a symlink there is refused
           with one line, left as it was, and the session goes on.
  command  `ctrl replay` prints the program, its arguments and its working
           directory before it runs them.
  fields   a checksum-valid trace edited in one field (an unknown strategy, a
           decision for thread 4294967295, a missing decision, ...) is
           refused with one line and exit 2, under --batch too; every other
           scalar field set to an extreme replays or is refused, never exit 3.
  peer     (root only: creates a user) another user's connection to a --gdb
           session is refused with one line and gets no reply; ctrl's own
           user then connects with gdb.
  libraries  ctrl started in a directory that holds files named as its
           libraries loads none of them: the loader looks for ctrl's
           libraries only under absolute paths (an empty run path entry
           means the working directory).
"""
import os
import pwd
import re
import shutil
import socket
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ctrl_trace  # noqa: E402
from ctrl_trace import pack, packed, parse, serialise, write_trace  # noqa: E402

MODE, CTRL, WORK, PROGRAM = sys.argv[1:5]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
os.chdir(WORK)

SECRET = "s3cr3t-value-that-must-not-leak"


def run(*args, env=None, stdin=None, timeout=100):
    p = subprocess.run([CTRL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                       env=env, input=stdin)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


def record(trace_dir="traces", extra=(), env=None):
    rc, out, err = run("attach", "--trace-dir", trace_dir, *extra, PROGRAM, env=env)
    expect(rc == 1, f"ctrl attach exited {rc}, expected 1 (the deadlock)\n{out}\n{err}")
    traces = [os.path.join(trace_dir, f) for f in os.listdir(trace_dir) if f.endswith(".ctrltrace")]
    expect(len(traces) == 1, f"expected one trace in {trace_dir}: {traces}")
    return traces[0], out


def read_trace(path):
    try:
        return ctrl_trace.read_trace(path)
    except ValueError as e:
        expect(False, f"{path}: {e}")


# Trace (protocol/trace.proto): the messages inside it, by field number.
TRACE, PROGRAM_MSG, OPTIONS, BUG, SIGNATURE = 0, 3, 4, 6, 8
SUBMESSAGES = {3: "program", 4: "options", 6: "bug", 8: "signatures", 9: "choices"}


def sub(fields, number, index=0):
    """The parsed submessage at field `number` (its `index`th occurrence),
    created when absent; write it back with put_sub."""
    found = [f for f in fields if f[0] == number]
    return parse(found[index][2]) if index < len(found) else []


def put_sub(fields, number, message, index=0):
    found = [f for f in fields if f[0] == number]
    if index < len(found):
        found[index][2] = serialise(message)
    else:
        fields.append([number, 2, serialise(message)])


def set_field(fields, number, value):
    """Sets the (first) field `number` of a message: an int as a varint, a
    str or bytes as length-delimited."""
    wire = 0 if isinstance(value, int) else 2
    if isinstance(value, str):
        value = value.encode()
    for f in fields:
        if f[0] == number:
            f[1], f[2] = wire, value
            return
    fields.append([number, wire, value])


def in_sub(number, field, value, index=0):
    def edit(t):
        m = sub(t, number, index)
        set_field(m, field, value)
        put_sub(t, number, m, index)
    return edit


def decisions(change):
    def edit(t):
        for f in t:
            if f[0] == 7:
                f[2] = pack(change(packed(f[2])))
    return edit


def append(number, message):
    def edit(t):
        t.append([number, 2, serialise(message)])
    return edit


def one_line_refusal(rc, out, err, what):
    lines = [l for l in err.splitlines() if l.strip()]
    expect(rc == 2, f"{what}: exit {rc}, expected 2\nstdout: {out}\nstderr: {err}")
    expect(len(lines) == 1, f"{what}: {len(lines)} lines on stderr, expected one:\n{err}")
    expect("internal error" not in err, f"{what}: an internal error: {err}")
    return lines[0]


def mode_trace():
    env = dict(os.environ, FAKE_API_TOKEN=SECRET, MY_PRIVATE_THING="private-" + SECRET)
    trace, out = record(extra=("--omit-env", "MY_PRIV*"), env=env)
    mode = stat.S_IMODE(os.stat(trace).st_mode)
    expect(mode == 0o600, f"the trace's mode is {oct(mode)}, expected 0o600")
    dmode = stat.S_IMODE(os.stat("traces").st_mode)
    expect(dmode == 0o700, f"the trace directory's mode is {oct(dmode)}, expected 0o700")
    data = open(trace, "rb").read()
    expect(SECRET.encode() not in data, "the trace holds FAKE_API_TOKEN's value")
    expect(b"FAKE_API_TOKEN=" not in data and b"MY_PRIVATE_THING=" not in data, "the trace holds a left-out variable")
    expect(b"PATH=" in data, "the trace lost the variables it should keep (PATH)")
    m = re.search(r"the trace leaves out (\d+) variables?: (.*)", out)
    expect(m and "FAKE_API_TOKEN" in m.group(2) and "MY_PRIVATE_THING" in m.group(2),
           f"attach does not say which variables the trace leaves out:\n{out}")
    # The replay runs without them and still reproduces the deadlock.
    rc, out, err = run("replay", trace)
    expect(rc == 1 and "replay reproduced the deadlock bug" in out, f"replay exited {rc}:\n{out}\n{err}")
    expect("without the" in out, f"replay does not say it runs without the left-out variables:\n{out}")
    print("ok: trace 0600 in a 0700 directory, secrets left out and said, replay reproduces")


def mode_save():
    trace, _ = record()
    existing = os.path.abspath("existing.txt")
    open(existing, "w").write("precious\n")
    victim = os.path.abspath("victim.txt")
    open(victim, "w").write("victim\n")
    link = os.path.abspath("planted-link")
    os.symlink(victim, link)
    fresh = os.path.abspath("fresh.ctrltrace")
    script = f"save {existing}\nsave {link}\nsave {fresh}\nquit\n"
    open("prompt.batch", "w").write(script)
    rc, out, err = run("replay", "--batch", "prompt.batch", trace)
    # A command that failed makes a --batch run exit 2 at its end.
    expect(rc == 2, f"replay --batch exited {rc}, expected 2 (two saves refused):\n{out}\n{err}")
    expect(open(existing).read() == "precious\n", "save replaced an existing file")
    expect(open(victim).read() == "victim\n" and os.path.islink(link), "save wrote through or over a symlink")
    expect(out.count("it exists (save writes only new files)") == 2, f"no refusal line for each:\n{out}\n{err}")
    expect(os.path.exists(fresh) and stat.S_IMODE(os.stat(fresh).st_mode) == 0o600,
           "the session did not go on to save a new file, 0600")
    expect(not [f for f in os.listdir(".") if ".tmp." in f], "a temporary file was left behind")

    # The same through gdb's monitor command.
    if not shutil.which("gdb"):
        print("ok (prompt); gdb is not installed: monitor save not checked")
        return
    fresh2 = os.path.abspath("fresh2.ctrltrace")
    server = subprocess.Popen([CTRL, "replay", "--gdb", "0", trace], stdout=subprocess.PIPE,
                              stderr=open("server.err", "w"), text=True)
    port = wait_port(server)
    g = subprocess.run(["gdb", "-nx", "-batch", "-ex", f"target remote :{port}", "-ex", f"monitor save {existing}",
                        "-ex", f"monitor save {fresh2}", "-ex", "detach", PROGRAM],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    server.wait(timeout=30)
    expect(open(existing).read() == "precious\n", "monitor save replaced an existing file")
    expect("it exists (save writes only new files)" in g.stdout, f"gdb shows no refusal:\n{g.stdout}")
    expect(os.path.exists(fresh2), f"the session did not go on after the refusal:\n{g.stdout}")
    expect(server.returncode == 0, f"ctrl replay --gdb exited {server.returncode}")
    print("ok: save and monitor save write only new files")


def wait_port(server):
    for _ in range(600):
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", open("server.err").read())
        if m:
            return int(m.group(1))
        expect(server.poll() is None, "ctrl --gdb ended before listening:\n" + open("server.err").read())
        time.sleep(0.05)
    server.kill()
    sys.exit("FAILED: ctrl --gdb never said where it listens")


def mode_command():
    rc, out, err = run("attach", "--trace-dir", "traces", PROGRAM, "first arg", "it's")
    expect(rc == 1, f"attach exited {rc}")
    trace = os.path.join("traces", os.listdir("traces")[0])
    rc, out, err = run("replay", trace)
    expect(rc == 1, f"replay exited {rc}:\n{out}\n{err}")
    want = f"ctrl: replay runs: {os.path.realpath(PROGRAM)} 'first arg' 'it'\\''s' in {os.getcwd()}"
    lines = out.splitlines()
    expect(want in lines, f"no line\n{want}\nin\n{out}")
    expect(lines.index(want) < next(i for i, l in enumerate(lines) if "replaying" in l),
           "the command line is printed after the replay started")
    print("ok: replay prints its command line first")


# Edits the replay must refuse: (what, edit, words expected in the line).
REFUSED = [
    ("unknown strategy", in_sub(4, 1, "dpor-bogus"), "unknown strategy"),
    ("unknown model", in_sub(4, 4, "weak"), "unknown memory model"),
    ("unknown visible", in_sub(4, 6, "some"), "unknown visible"),
    ("unknown monitor", in_sub(4, 8, "strict"), "unknown monitor"),
    ("unknown stdout kind", in_sub(4, 14, "printer"), "unknown stdout kind"),
    ("bad fail-on-exit", in_sub(4, 10, "not-a-status"), "fail-on-exit"),
    ("unknown bug kind", in_sub(6, 1, "meltdown"), "unknown bug kind"),
    ("pct depth", in_sub(4, 9, 1000), "pct depth"),
    ("odd shared set", in_sub(4, 16, pack([4096])), "shared set"),
    ("relative program", in_sub(3, 1, "bin/prog"), "absolute path"),
    ("bad content hash", in_sub(3, 3, "not-a-hash"), "content hash"),
    ("relative cwd", in_sub(3, 6, "here"), "working directory"),
    ("NUL in an argument", lambda t: append_in(t, 3, [[4, 2, b"a\0b"]]), "NUL"),
    ("omitted variable out of range", lambda t: append_in(t, 3, [[9, 2, serialise([[1, 2, b"X"], [2, 0, 100000],
                                                                                    [3, 0, 5]])]]), "left-out"),
    ("decision for thread 4294967295", decisions(lambda d: [0xFFFFFFFF] + d[1:]), "thread 4294967295"),
    ("a missing decision", decisions(lambda d: d[:-1]), "decisions but"),
    ("unknown operation kind", in_sub(8, 2, 999), "unknown operation kind"),
    ("signature of another thread", in_sub(8, 1, 7), "signature is thread 7"),
    ("bug thread", in_sub(6, 3, 0xFFFFFFFF), "bug's thread"),
    ("unknown choice kind", append(9, [[1, 0, 7]]), "choice"),
    ("format version", lambda t: set_field(t, 1, 2), "format version"),
]


def append_in(t, number, extra):
    m = sub(t, number)
    m.extend(extra)
    put_sub(t, number, m)


# Not swept: the shared set (packed). What a replay checks against the
# program as it runs (a step's site, address and size) is swept: an edit
# there is a divergence, bad input too (exit 2, one line).
NOT_SWEPT = {(4, 16)}


def scalar_leaves(fields, prefix=()):
    """(path, wire, value) of every field holding a varint or a string, through the
    known submessages (first occurrence only)."""
    seen = set()
    for number, wire, v in fields:
        if number in seen or (prefix and wire not in (0, 2)):
            continue
        seen.add(number)
        if not prefix and number in SUBMESSAGES:
            yield from scalar_leaves(parse(v), (number,))
        elif (number, wire) != (7, 2) and prefix + (number,) not in NOT_SWEPT:
            yield prefix + (number,), wire, v


def edited(t, path, value):
    fields = [list(f) for f in t]
    if len(path) == 1:
        set_field(fields, path[0], value)
    else:
        in_sub(path[0], path[1], value)(fields)
    return fields


def mode_fields():
    trace, _ = record()
    original = read_trace(trace)
    rc, out, err = run("replay", trace)
    expect(rc == 1, f"the unedited trace does not replay: {rc}\n{out}\n{err}")
    open("steps.batch", "w").write("continue\nquit\n")
    for k, (what, edit, words) in enumerate(REFUSED):
        fields = [list(f) for f in original]
        edit(fields)
        path = f"edit{k}.ctrltrace"
        write_trace(path, fields)
        line = one_line_refusal(*run("replay", path), what)
        expect(words in line, f"{what}: the line does not say '{words}': {line}")
        if k % 4 == 0:  # and the same under --batch
            one_line_refusal(*run("replay", "--batch", "steps.batch", path), what + " (--batch)")
        print(f"ok: {what}: {line}")
    # Every other scalar field at an extreme: a replay or a refusal, never
    # an internal error.
    extremes = 0
    for path, wire, old in scalar_leaves(original):
        # Strings keep their length: an environment entry of another size
        # would move the stack, a divergence again.
        value = 0xFFFFFFFFFFFFFFFF if wire == 0 else (b"\x01" + b"x" * max(len(old) - 1, 0))
        fields = edited(original, path, value)
        name = "field" + "_".join(map(str, path)) + ".ctrltrace"
        write_trace(name, fields)
        rc, out, err = run("replay", name, timeout=60)
        expect(rc in (0, 1, 2), f"field {path} = {value!r}: exit {rc}\n{out}\n{err}")
        expect("internal error" not in err, f"field {path} = {value!r}: {err}")
        if rc == 2:
            one_line_refusal(rc, out, err, f"field {path}")
        extremes += 1
    expect(extremes >= 20, f"only {extremes} scalar fields found in the trace")
    print(f"ok: {len(REFUSED)} edits refused with one line, {extremes} fields at an extreme handled")


def mode_peer():
    if os.geteuid() != 0:
        print("SKIP: not root: cannot create a second user to connect as")
        sys.exit(77)
    user = "ctrl-e2e-other"
    try:
        pwd.getpwnam(user)
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", user], check=True)
    other_uid = pwd.getpwnam(user).pw_uid
    trace, _ = record()
    server = subprocess.Popen([CTRL, "replay", "--gdb", "0", trace], stdout=subprocess.PIPE,
                              stderr=open("server.err", "w"), text=True)
    try:
        port = wait_port(server)
        victim = "/tmp/ctrl-e2e-peer-victim-%d" % os.getpid()
        client = ("import socket,sys\n"
                  f"s=socket.create_connection(('127.0.0.1',{port}))\n"
                  "s.settimeout(10)\n"
                  f"p=b'qRcmd,'+'save {victim}'.encode().hex().encode()\n"
                  "s.sendall(b'+$'+p+b'#'+b'%02x'%(sum(p)&255))\n"
                  "try:\n  got=s.recv(100)\nexcept Exception as e:\n  got=repr(e).encode()\n"
                  "sys.stdout.write(repr(got))\n")
        # The system's python: one under root's home cannot be run by the user.
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        c = subprocess.run(["runuser", "-u", user, "--", python, "-c", client], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        # Closed without a reply: an end of file, or a reset (or a broken
        # pipe) when the close came before the client's write or read.
        got = c.stdout.strip()
        expect(got == "b''" or "ConnectionResetError" in got or "BrokenPipeError" in got,
               f"the other user's connection got a reply: {c.stdout}")
        expect(not os.path.exists(victim), "the other user made ctrl write a file")
        # ctrl may write its line just after it closed the connection.
        refused = f"refused a gdb connection from uid {other_uid}"
        for _ in range(100):
            if refused in open("server.err").read():
                break
            time.sleep(0.1)
        expect(refused in open("server.err").read(),
               "no line says the connection was refused:\n" + open("server.err").read())
        # The session still waits for its own user.
        g = subprocess.run(["gdb", "-nx", "-batch", "-ex", f"target remote :{port}", "-ex", "monitor help", "-ex",
                            "detach", PROGRAM], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=60)
        server.wait(timeout=30)
        expect(server.returncode == 0 and "monitor save" in g.stdout,
               f"ctrl's own user could not use the session (exit {server.returncode}):\n{g.stdout}")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    print("ok: another user's connection refused, the owner's served")


def mode_libraries():
    env = dict(os.environ, LD_DEBUG="libs")
    rc, out, err = run("--version", env=env)
    expect(rc == 0, f"ctrl --version exited {rc}:\n{err}")
    tried = re.findall(r"trying file=(\S+)", err)
    expect(tried, "LD_DEBUG=libs printed no search: the check cannot see the loader\n" + err)
    relative = [f for f in tried if not f.startswith("/")]
    expect(not relative, f"the loader searched the working directory for ctrl's libraries ({len(relative)} paths): {relative[:4]}")
    # Files named as the libraries it looked for, here: still not loaded.
    for name in {os.path.basename(f) for f in tried}:
        with open(name, "w") as f:
            f.write("not a library\n")
    rc, out, err = run("--version")
    expect(rc == 0, f"ctrl --version beside files named as its libraries exited {rc}:\n{err}")
    record()
    print(f"ok: {len(tried)} library paths tried, all absolute; files named as them here were not loaded")


{"trace": mode_trace, "save": mode_save, "command": mode_command, "fields": mode_fields, "peer": mode_peer,
 "libraries": mode_libraries}[MODE]()
