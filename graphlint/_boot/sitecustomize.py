"""``graphlint run``'s start-up hook, imported by the program's own Python as ``sitecustomize``.

``graphlint run`` (graphlint.runner) starts the program as ``python SCRIPT ARGS`` with this
folder first on ``PYTHONPATH`` and its channel folder in ``GRAPHLINT_RUN``. Python imports
``sitecustomize`` while it starts, before the script's folder is put on ``sys.path``. This module:

- takes its folder off ``sys.path`` again, and the two variables out of ``os.environ`` (not
  out of the process's environment, which a subprocess that inherits it gets): the program
  sees the path and the environment python gives it; an environment the program gives a child
  (``env=`` of subprocess, ``os.execve``, ``os.posix_spawn``) gets them back, and so does the
  process's own when the program sets or unsets ``PYTHONPATH`` (``os.putenv``,
  ``os.unsetenv``): every Python subprocess is followed;
- watches, from a finder consulted before ``sys.meta_path`` (which stays python's), for the
  first import of a framework (TensorFlow, Keras,
  tf-keras, JAX, PyTorch): only then is graphlint's engine loaded (graphlint.child), with imports resolved
  on the path of this moment, so that a ``pluggy.py`` beside the script is never graphlint's;
- writes the process's first record at once (it is watched, whatever happens to the last), and
  leaves the last report to an ``atexit`` handler registered before any of the
  program's (handlers run last-registered-first: it runs after all of them, after the threads'
  shutdown), and reports before ``os._exit`` (the only function it replaces) and before an
  ``exec`` (an audit hook: a failed exec changes nothing); a forked child starts afresh;
- runs graphlint's own modules (and the third-party packages it hides from the program) with
  the builtins python started with: their imports never reach a program's own
  ``builtins.__import__``;
- then imports the ``sitecustomize`` python would have imported, if there is one.

At start-up it imports nothing Python has not imported already (``atexit``, a built-in module,
aside: and that one is taken out of ``sys.modules`` again). Everything here is written for any
Python (a subprocess of the program may run another one): if graphlint cannot start in it, the
program runs on without it.
"""

import os
import sys

#: The environment variable naming the run's channel folder (graphlint.runner sets it).
CHANNEL_ENV = "GRAPHLINT_RUN"
#: The settings of the run (config, plugins), pickled by the parent for every process of it.
SETTINGS = "settings.pickle"
#: The first import of one of these starts graphlint's engine in the process.
FRAMEWORKS = frozenset(("tensorflow", "keras", "tf_keras", "jax", "torch"))


def _quoted(text):
    """``text`` as a JSON string (ASCII only), without importing json."""
    out = []
    for char in text:
        if " " <= char < "\x7f" and char not in '"\\':
            out.append(char)
        elif ord(char) <= 0xFFFF:
            out.append("\\u%04x" % ord(char))
        else:
            out.append("?")
    return '"' + "".join(out) + '"'


def _third_party(name):
    """Neither graphlint, a framework (the program's to import), nor the standard library."""
    if name in FRAMEWORKS or name.startswith(("graphlint", "_sysconfigdata")):
        return False
    return name not in getattr(sys, "stdlib_module_names", ())


class Boot(object):
    """This process's part of the run: its record in the channel folder, the import watcher on
    import system (before ``sys.meta_path``), and graphlint's engine once a framework is imported.

    Each process image writes one record file, ``<pid>-<random>.json``, replaced whole on every
    report (a temporary file renamed over it): a forked child and an ``exec``'d program write
    their own."""

    def __init__(self, channel, here):
        import _thread

        self.channel = channel
        self.here = here
        #: graphlint's own folder (the one holding the graphlint package)
        self.root = os.path.dirname(os.path.dirname(here))
        #: sys.path as python starts the program with it, before the script's folder is added
        self.path = list(sys.path)
        self.engine = None
        self.error = None
        self.kind = "python"
        self.own = set()  # the threads importing for graphlint itself, while they do
        self.found = set()  # the third-party modules graphlint imported: hidden from the program
        self.silent = False  # PYTHONVERBOSE: no import message at all from graphlint's own imports
        self._get_ident = _thread.get_ident
        self._lock = _thread.allocate_lock()
        self._real_exit = os._exit
        builtins = sys.modules["builtins"]
        #: the builtins as python started the program with them: graphlint's own modules run
        #: with these, so that their imports never call a program's own builtins.__import__
        self.builtins = dict(builtins.__dict__)
        # ... and importlib's own __import__, in Python: the import system's C part, which
        # times each import it loads for ``-X importtime``, never sees graphlint's
        self._import = getattr(sys.modules["_frozen_importlib"], "__import__", builtins.__import__)
        self.builtins["__import__"] = self._import
        self._loaders = {}  # a file loader's class: its subclass for graphlint's own modules
        self.hiding = False  # the engine starts: the third-party packages it imports are its own
        self.forks_watched = False  # subprocess's fork_exec replaced (at its first Popen)
        #: graphlint's finders, consulted before sys.meta_path (_hook_find_spec): this one, and
        #: the engine's import watcher first once it starts
        self.finders = [self]
        self._new_image()

    def _new_image(self):
        self.pid = os.getpid()
        self.image = "%d-%s" % (self.pid, os.urandom(4).hex())

    # -- the import watcher (before sys.meta_path) ---------------------------------------------
    def find_spec(self, fullname, path=None, target=None):
        if path is not None:  # a submodule: only graphlint's own are this hook's business
            if self.own and self._get_ident() in self.own and self._isolated_package(fullname):
                return self._isolated(sys.modules["_frozen_importlib_external"].PathFinder.find_spec(fullname, path))
            return None
        if self.own and self._get_ident() in self.own:
            return self._own_spec(fullname)
        if fullname in FRAMEWORKS and self.engine is None and self.error is None:
            try:
                return self._start(fullname, target)
            except BaseException as exc:  # another finder's error, as python shows it
                _unwound(exc)
                raise
        return None

    def _own_spec(self, fullname):
        """graphlint's own imports: found where python would have found them at start-up
        (graphlint itself in the folder this hook came from), a module python keeps frozen
        (``ntpath``, ``importlib.util``) frozen and a built-in one built in, as python's own finders
        come first."""
        bootstrap = sys.modules["_frozen_importlib"]
        for first in (bootstrap.BuiltinImporter, bootstrap.FrozenImporter):
            spec = first.find_spec(fullname)
            if spec is not None:
                return spec
        finder = sys.modules["_frozen_importlib_external"].PathFinder
        spec = finder.find_spec(fullname, [self.root] if fullname == "graphlint" else self.path)
        if spec is not None and _third_party(fullname):
            self.found.add(fullname)
        ours = fullname == "graphlint" or self.hiding and _third_party(fullname)
        return self._isolated(spec) if ours else spec

    def _isolated_package(self, fullname):
        """Whether the submodule ``fullname`` is of a package :meth:`_isolated` loaded."""
        package = sys.modules.get(fullname.partition(".")[0])
        return type(getattr(package, "__loader__", None)) in self._loaders.values()

    def _isolated(self, spec):
        """``spec`` of a module of graphlint's own (graphlint, a third-party package it hides
        from the program), loaded to run with the builtins python started with
        (:func:`_own_loader`); a module of another kind of loader as it is."""
        if spec is None:
            return None
        loader = spec.loader
        kind = type(loader)
        if kind not in self._loaders:
            self._loaders[kind] = _own_loader(kind, self.builtins)
        own = self._loaders[kind]
        if own is not None:
            spec.loader = own(loader.name, loader.path)
        return spec

    def _start(self, fullname, target):
        """The program imports a framework for the first time: start the engine, then find the
        module as the other finders would (the engine's own watcher, now first, among them)."""
        self.start_engine()
        for finder in self.finders + list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, None, target)
            if spec is not None:
                return spec
        return None

    def start_engine(self):
        """graphlint's engine (graphlint.child), imported on the start-up path; on failure the
        reason is kept for the report and the program runs on unwatched."""
        with self._lock:
            if self.engine is None and self.error is None:
                with _OwnImports(self, hide=True):
                    try:  # (not an import statement: a program's own __import__ would see it)
                        child = self._import("graphlint.child", None, None, ("Engine",), 0)
                        self.engine = child.Engine(self)
                    except Exception as exc:
                        self.error = "%s: %s" % (type(exc).__name__, exc)

    def own_imports(self):
        return _OwnImports(self)

    # -- reports ------------------------------------------------------------------------------
    def report(self, final, ended, status=None):
        """Write this process's record: the findings so far (``final``: the process ends)."""
        try:
            if self.engine is not None:
                self.engine.report(final, ended, status)
            else:
                self.write(self.plain_record(final, ended))
        except Exception as exc:  # never the program's problem; the parent says it
            if final:
                self.error = "the final report failed: %s: %s" % (type(exc).__name__, exc)
                try:
                    self.write(self.plain_record(final, ended))
                except Exception:
                    pass

    def plain_record(self, final, ended, findings="[]", warnings="[]"):
        error = "null" if self.error is None else _quoted(self.error)
        return (
            '{"version": 1, "pid": %d, "ppid": %d, "image": "%s", "kind": "%s", "final": %s, '
            '"ended": "%s", "error": %s, "findings": %s, "warnings": %s}'
            % (self.pid, os.getppid(), self.image, self.kind, "true" if final else "false", ended, error,
               findings, warnings)
        )

    def write(self, text):
        """Replace this image's record by ``text`` at once (a temporary file renamed over it)."""
        target = os.path.join(self.channel, self.image + ".json")
        temporary = target[:-5] + ".tmp"
        data = text.encode("utf-8", "backslashreplace")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)
        os.replace(temporary, target)

    # -- the process's ends -------------------------------------------------------------------
    def at_exit(self):
        self.report(True, "exit")

    def exit(self, status):
        """``os._exit``: report, then the real one."""
        try:
            if isinstance(status, int):  # (else the real one raises, and the run goes on)
                self.report(True, "_exit", status)
        finally:
            self._real_exit(status)

    def audit(self, event, args):
        if event == "os.exec":  # about to replace this program: what it found so far
            self.report(False, "exec")
        elif event == "subprocess.Popen" and not self.forks_watched:
            self.forks_watched = True
            _watch_fork_exec(self)

    # -- graphlint's variables, in the environment a child starts with -------------------------
    def given_env(self, env):
        """``env``, a mapping a child is given, with graphlint's variables (a copy): its
        start-up folder first on ``PYTHONPATH``, ``GRAPHLINT_RUN``; as it is when it has a
        ``GRAPHLINT_RUN`` (a ``graphlint run`` of the program's own) or is no mapping of
        strings (the real function says what is wrong with it)."""
        if env is None:
            return env
        try:
            items = dict(env)
            if CHANNEL_ENV in items or os.fsencode(CHANNEL_ENV) in items:
                return env
            encode = os.fsencode if any(isinstance(key, bytes) for key in items) else os.fsdecode
            name, here = encode("PYTHONPATH"), encode(self.here)
            rest = items.get(name)
            items[name] = here + encode(os.pathsep) + rest if rest else here  # type: ignore[operator]  # all str or all bytes
            items[encode(CHANNEL_ENV)] = encode(self.channel)
            return items
        except Exception:
            return env

    def given_env_list(self, env_list):
        """``env_list`` (``NAME=value`` bytes, subprocess's fork_exec) as :meth:`given_env`."""
        if env_list is None:
            return env_list
        try:
            channel = os.fsencode(CHANNEL_ENV) + b"="
            if any(entry.startswith(channel) for entry in env_list):
                return env_list
            here, sep, found, out = os.fsencode(self.here), os.fsencode(os.pathsep), False, []
            for entry in env_list:
                if entry.startswith(b"PYTHONPATH="):
                    rest = entry[len(b"PYTHONPATH="):]
                    entry, found = b"PYTHONPATH=" + here + (sep + rest if rest else b""), True
                out.append(entry)
            if not found:
                out.append(b"PYTHONPATH=" + here)
            out.append(channel + os.fsencode(self.channel))
            return out
        except Exception:
            return env_list

    def python_path(self, value):
        """A ``PYTHONPATH`` the program puts in the process's environment, with graphlint's
        start-up folder first (its subprocesses inherit it)."""
        here = os.fsencode(self.here) if isinstance(value, bytes) else self.here
        sep = os.fsencode(os.pathsep) if isinstance(value, bytes) else os.pathsep
        return here + sep + value if value else here  # type: ignore[operator]  # all str or all bytes

    def forked(self):
        """In a forked child: a process of its own, starting from nothing judged."""
        self._new_image()
        self.kind = "fork"
        self._lock = sys.modules["_thread"].allocate_lock()
        self.own = set()
        if self.engine is not None:
            self.engine.forked()


def _own_loader(kind, builtins):
    """A subclass of the file loader ``kind`` whose modules run with ``builtins``, or None (a
    module of an extension, a zip archive: loaded as it is)."""
    external = sys.modules["_frozen_importlib_external"]
    if kind not in (external.SourceFileLoader, external.SourcelessFileLoader):
        return None

    def exec_module(self, module):
        module.__dict__["__builtins__"] = builtins  # (exec keeps a __builtins__ it is given)
        kind.exec_module(self, module)

    return type(kind.__name__, (kind,), {"exec_module": exec_module, "__module__": kind.__module__})


class _OwnImports(object):
    """While open, this thread's top-level imports are found on the start-up path; the
    third-party packages graphlint imported so are taken out of ``sys.modules`` again
    (graphlint keeps them), so that the program imports its own (a ``pluggy.py`` beside the
    script, say)."""

    def __init__(self, boot, hide=False):
        self.boot = boot
        self.hide = hide  # (only where the engine starts: later windows import nothing new)

    def __enter__(self):
        self.ident = self.boot._get_ident()
        self.nested = self.ident in self.boot.own
        self.boot.own.add(self.ident)
        if self.hide and not self.nested:
            self.boot.hiding = True
        return self

    def __exit__(self, *exc):
        if self.nested:
            return
        self.boot.own.discard(self.ident)
        if self.hide:
            self.boot.hiding = False
        found, self.boot.found = self.boot.found, set()
        if found and self.hide:
            for name in list(sys.modules):
                if name.partition(".")[0] in found:
                    _KEPT.append(sys.modules.pop(name))


_KEPT: list = []  # the modules hidden from the program: graphlint's


class _Exit(object):
    """``os._exit`` as graphlint replaces it (report, then the real one), read as the builtin:
    no method when stored in a class (it is no descriptor), ``status`` by keyword too, the
    builtin's repr, names, ``__self__`` and signature, and pickled by its name (as
    ``posix._exit``: multiprocessing's spawn pickles ``Process(target=os._exit)``)."""

    def __init__(self, boot, real):
        self._boot = boot
        self._real = real
        for attr in ("__name__", "__qualname__", "__doc__", "__module__", "__self__", "__text_signature__"):
            try:
                setattr(self, attr, getattr(real, attr))
            except (AttributeError, TypeError):
                pass

    def __call__(self, status):
        try:
            self._boot.exit(status)
        except BaseException as exc:  # the builtin's own error (a status of no int)
            _unwound(exc)
            raise

    def __repr__(self):
        return repr(self._real)

    def __reduce__(self):
        return self._real.__name__  # a global of its module, found by name (copy: itself)


def _unwound(exc):
    """Take graphlint's own frames off the head of ``exc``'s traceback as it leaves a function
    graphlint replaced (``os._exit``) or a finder of its: the program's traceback is python's.
    The caller re-raises it with a bare ``raise``, which (Python 3.11 on) adds no entry of its
    own (graphlint.probes.patching.unwound, for the probes)."""
    own = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(own):
        tb = tb.tb_next
    exc.__traceback__ = tb


def _wrap_exit(boot):
    real = os._exit
    _exit = _Exit(boot, real)
    os._exit = _exit
    # and in the module it names (posix), as python has it: pickle finds it there by name
    # (multiprocessing's spawn pickles Process(target=os._exit)), and os._exit is posix._exit
    native = sys.modules.get(getattr(real, "__module__", None) or "")
    if native is not None and getattr(native, "_exit", None) is real:
        setattr(native, "_exit", _exit)


class _Passing(object):
    """A function of ``os`` (or subprocess's ``_fork_exec``) as graphlint replaces it: its
    arguments adjusted by ``adjust(args, kwargs)`` (graphlint's variables put back into the
    environment a child gets), or ``call`` instead, read as the builtin (its repr, names, ``__self__``, signature,
    pickled by its name) and raising the builtin's own errors from the program's line."""

    def __init__(self, real, adjust=None, call=None):
        self._real = real
        self._adjust = adjust
        self._call = call  # instead of adjust and the real function: what is called
        for attr in ("__name__", "__qualname__", "__doc__", "__module__", "__self__", "__text_signature__"):
            try:
                setattr(self, attr, getattr(real, attr))
            except (AttributeError, TypeError):
                pass

    def __call__(self, *args, **kwargs):
        try:
            if self._call is not None:
                return self._call(*args, **kwargs)
            args, kwargs = self._adjust(args, kwargs)
            return self._real(*args, **kwargs)
        except BaseException as exc:
            _unwound(exc)
            raise

    @property
    def __signature__(self):
        import inspect  # (asked by inspect itself: imported)

        return inspect.signature(self._real)

    def __repr__(self):
        return repr(self._real)

    def __reduce__(self):
        return self._real.__name__


def _env_at(boot, index, keyword):
    """An ``adjust`` for :class:`_Passing`: the environment at ``args[index]`` or
    ``kwargs[keyword]`` given graphlint's variables."""
    def adjust(args, kwargs):
        if len(args) > index:
            args = args[:index] + (boot.given_env(args[index]),) + args[index + 1:]
        elif keyword in kwargs:
            kwargs = dict(kwargs, **{keyword: boot.given_env(kwargs[keyword])})
        return args, kwargs

    return adjust


def _replace(module, name, replacement):
    """``module.name`` and the same function of the module it names (``posix``) replaced."""
    real = getattr(module, name)
    setattr(module, name, replacement)
    native = sys.modules.get(getattr(real, "__module__", None) or "")
    if native is not None and native is not module and getattr(native, name, None) is real:
        setattr(native, name, replacement)


def _keep_variables(boot):
    """graphlint's variables stay in the environment of every child: those ``os.execve``,
    ``os.posix_spawn`` and ``os.posix_spawnp`` are given, and the process's own (which
    ``os.system``, an exec without ``env``, subprocess without ``env=`` pass on) when the program sets
    or unsets ``PYTHONPATH`` (``os.environ`` calls ``os.putenv`` and ``os.unsetenv``)."""
    for name, index, keyword in (("execve", 2, "env"), ("posix_spawn", 2, None), ("posix_spawnp", 2, None)):
        if hasattr(os, name):
            _replace(os, name, _Passing(getattr(os, name), _env_at(boot, index, keyword)))

    def putenv(args, kwargs):
        if len(args) == 2 and not kwargs and _is_name(args[0], "PYTHONPATH"):
            args = (args[0], boot.python_path(args[1]))
        return args, kwargs

    real_putenv = getattr(os, "putenv", None)
    real_unsetenv = getattr(os, "unsetenv", None)
    if real_putenv is None:
        return
    _replace(os, "putenv", _Passing(real_putenv, putenv))
    if real_unsetenv is not None:
        def unsetenv(*args, **kwargs):
            if len(args) == 1 and not kwargs and _is_name(args[0], "PYTHONPATH"):
                return real_putenv(args[0], boot.python_path(args[0][:0]))  # only graphlint's folder stays
            return real_unsetenv(*args, **kwargs)

        _replace(os, "unsetenv", _Passing(real_unsetenv, call=unsetenv))


def _is_name(key, name):
    return key == name or key == name.encode("ascii")


def _watch_fork_exec(boot):
    """subprocess's ``_fork_exec`` (``_posixsubprocess.fork_exec``), whose ``env_list`` (its
    sixth argument) gets graphlint's variables: replaced at the program's first ``Popen``, in
    its audit event, before the call."""
    def adjust(args, kwargs):
        if len(args) > 5:
            args = args[:5] + (boot.given_env_list(args[5]),) + args[6:]
        return args, kwargs

    subprocess = sys.modules.get("subprocess")
    native = sys.modules.get("_posixsubprocess")
    try:
        if subprocess is not None and callable(getattr(subprocess, "_fork_exec", None)):
            real = getattr(subprocess, "_fork_exec")
            replacement = _Passing(real, adjust)
            setattr(subprocess, "_fork_exec", replacement)
            if native is not None and getattr(native, "fork_exec", None) is real:
                setattr(native, "fork_exec", replacement)
        elif native is not None and hasattr(native, "fork_exec"):  # (before 3.11: called from there)
            setattr(native, "fork_exec", _Passing(getattr(native, "fork_exec"), adjust))
    except Exception:
        pass


def _hide_environment(here):
    """``os.environ`` (and ``os.environb``, which shares its mapping) as python gives it to the
    program: without ``GRAPHLINT_RUN``, and with ``PYTHONPATH`` as graphlint's caller gave it
    (without this folder first). The process's own environment keeps both (``os.environ``
    changed without ``unsetenv``)."""
    try:
        data, encode = getattr(os.environ, "_data"), os.environ.encodekey
        data.pop(encode(CHANNEL_ENV), None)
        value = os.environ.get("PYTHONPATH")
        if value is None:
            return
        first, _, rest = value.partition(os.pathsep)
        if os.path.abspath(first) != here:
            return
        if rest:
            data[encode("PYTHONPATH")] = os.environ.encodevalue(rest)
        else:
            data.pop(encode("PYTHONPATH"), None)
    except Exception:
        pass


def _hook_find_spec(boot):
    """graphlint's finders consulted before ``sys.meta_path``, which stays python's: importlib's
    ``_find_spec`` (which the import system calls for every module not imported yet) replaced,
    under the name of importlib's frames (the import system leaves those out of a traceback as
    its own). Where importlib has none, the finder goes first on ``sys.meta_path``."""
    bootstrap = sys.modules.get("_frozen_importlib")
    real = getattr(bootstrap, "_find_spec", None)
    lock = getattr(bootstrap, "_ImportLockContext", None)
    if real is None or lock is None:
        sys.meta_path.insert(0, boot)
        return
    finders = boot.finders

    def _find_spec(name, path, target=None):
        try:
            if sys.meta_path is not None:
                for finder in finders:
                    with lock():
                        spec = finder.find_spec(name, path, target)
                    if spec is not None:
                        return spec
            return real(name, path, target)
        except BaseException as exc:  # a finder's error: this frame left out, as under python
            tb = exc.__traceback__
            if tb is not None and tb.tb_frame.f_code is _find_spec.__code__:
                exc.__traceback__ = tb.tb_next
            raise

    _find_spec.__code__ = _find_spec.__code__.replace(co_filename=real.__code__.co_filename)
    for attr in ("__module__", "__doc__"):
        setattr(_find_spec, attr, getattr(real, attr))
    setattr(bootstrap, "_find_spec", _find_spec)


def _quiet_own_imports(boot):
    """``PYTHONVERBOSE`` (``-v``): importlib's messages about graphlint's own imports left out
    (those of a thread importing for graphlint, while it does): graphlint itself and the
    third-party packages it imports, which the program imports afresh (see _OwnImports). A
    standard-library module's are printed: the program finds it imported, and python would
    have printed them when the program imported it."""
    bootstrap = sys.modules.get("_frozen_importlib")
    real = getattr(bootstrap, "_verbose_message", None)
    if real is None:
        return
    get_ident = boot._get_ident
    stdlib = getattr(os, "__file__", None)
    stdlib = os.path.dirname(stdlib) + os.sep if stdlib else None

    def _verbose_message(message, *args, **kwargs):
        if not (boot.own and get_ident() in boot.own) or not boot.silent and _standard(args, stdlib):
            real(message, *args, **kwargs)

    setattr(bootstrap, "_verbose_message", _verbose_message)


def _standard(args, stdlib):
    """Whether an import message (its arguments: a module's name, or a file's path first) is
    about a module of the standard library."""
    subject = next((arg for arg in args if isinstance(arg, str)), None)
    if subject is None:
        return True
    if os.sep in subject:
        parts = subject.split(os.sep)
        return bool(stdlib) and subject.startswith(stdlib) and "site-packages" not in parts \
            and "dist-packages" not in parts
    return not subject.startswith("graphlint") and not _third_party(subject.partition(".")[0])


def _unlisted():
    """This folder off ``sys.path`` (``PYTHONPATH`` put it there); the folder."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path if entry != here]
    sys.path_importer_cache.pop(here, None)
    return here


def install(channel):
    """Watch this process for the run whose channel folder is ``channel``; the Boot."""
    here = _unlisted()
    boot = Boot(channel, here)
    if sys.flags.verbose:
        _quiet_own_imports(boot)
    imported = "atexit" in sys.modules
    with boot.own_imports():
        boot.silent = True  # (taken out of sys.modules again: the program imports it afresh)
        try:
            import atexit
        finally:
            boot.silent = False

    atexit.register(boot.at_exit)  # before any handler of the program: it runs after them all
    if not imported:  # python has not imported it (a later import gets the same registry)
        del sys.modules["atexit"]
    _wrap_exit(boot)
    _keep_variables(boot)
    _hide_environment(here)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=boot.forked)
    if hasattr(sys, "addaudithook"):
        sys.addaudithook(boot.audit)
    _hook_find_spec(boot)
    # a first record: the process is watched even if its last report never comes (a program
    # that clears the atexit handlers, a kill), and the parent reports its real end
    boot.report(False, "start")
    return boot


if __name__ == "sitecustomize":
    try:
        if os.path.isdir(os.environ.get(CHANNEL_ENV, "")):
            install(os.environ[CHANNEL_ENV])
        else:  # not a process of graphlint run's (its folder is gone): only the path put back
            _unlisted()
    except Exception:
        pass  # the program runs, unwatched
    # The sitecustomize python would have imported (the user's, the distribution's), if any:
    # when there is none, site sees this module's ImportError and leaves none, as python would.
    del sys.modules["sitecustomize"]
    import sitecustomize  # noqa: F401,E402
