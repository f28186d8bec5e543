"""Writing the kubelet's checkpoint files (`admit --write-state DIR`) the way the kubelet's checkpoint
manager does (pkg/kubelet/checkpointmanager over pkg/kubelet/util/store's FileStore): each file is
written to a temporary file in DIR whose name starts with ".", synced, and renamed over its name, so
that a reader finds the old file or the new one, never a part of either.

cpu_manager_state and memory_manager_state belong together, so both temporary files are written
before either is renamed, and if the second rename fails the first file is put back as it was: a
new cpu_manager_state never sits beside an old memory_manager_state. Symlinks are refused (DIR
itself, or a file's name in it): everything is done relative to DIR opened without following one.
Any failure is one line of bad input (exit 2), raised before any file is replaced; the caller
prints its answer only after.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Sequence

from ..model.errors import InputError

# The kubelet's FileStore creates its directory with these permissions, its files with 0600.
_DIRECTORY_MODE = 0o700
_FILE_MODE = 0o600


def _fail(directory: str, what: str, error: OSError | str) -> InputError:
    reason = error if isinstance(error, str) else (error.strerror or str(error))
    return InputError(f"--write-state {directory}: {what}: {reason}")


def write_files(directory: str, files: Sequence[tuple[str, bytes]]) -> list[str]:
    """Write every (name, content) into `directory`, all or none; the paths written."""
    fd = _open_directory(directory)
    try:
        for name, _ in files:
            _check_target(fd, directory, name)
        temporaries: list[tuple[str, str]] = []  # (temporary name, final name)
        try:
            for name, content in files:
                temporaries.append((_write_temporary(fd, directory, name, content), name))
            _rename_all(fd, directory, temporaries)
        finally:
            for temporary, _ in temporaries:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary, dir_fd=fd)
        # The renames themselves on disk; what could go wrong now cannot undo them.
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
    return [os.path.join(directory, name) for name, _ in files]


def _open_directory(directory: str) -> int:
    """DIR opened as a directory, never through a symlink (created, as the kubelet does, if missing)."""
    bare = directory.rstrip("/") or "/"
    try:
        info = os.lstat(bare)
    except FileNotFoundError:
        try:
            os.makedirs(bare, mode=_DIRECTORY_MODE)
        except OSError as e:
            raise _fail(directory, "cannot create the directory", e) from e
        info = os.lstat(bare)
    except OSError as e:
        raise _fail(directory, "cannot read", e) from e
    if stat.S_ISLNK(info.st_mode):
        raise _fail(directory, "is a symbolic link", "kubefit does not write state through one")
    if not stat.S_ISDIR(info.st_mode):
        raise _fail(directory, "is not a directory", os.strerror(errno.ENOTDIR))
    try:
        return os.open(bare, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise _fail(directory, "cannot open the directory", e) from e


def _check_target(fd: int, directory: str, name: str) -> None:
    try:
        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    except OSError as e:
        raise _fail(directory, name, e) from e
    if stat.S_ISLNK(info.st_mode):
        raise _fail(directory, name, "is a symbolic link: kubefit does not write state through one")
    if not stat.S_ISREG(info.st_mode):
        raise _fail(directory, name, "exists and is not a regular file")


def _write_temporary(fd: int, directory: str, name: str, content: bytes) -> str:
    temporary = f".{name}.{secrets.token_hex(4)}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        out = os.open(temporary, flags, _FILE_MODE, dir_fd=fd)
    except OSError as e:
        raise _fail(directory, f"cannot write {name}", e) from e
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(out, view) :]
        os.fsync(out)
    except OSError as e:
        os.close(out)
        os.unlink(temporary, dir_fd=fd)
        raise _fail(directory, f"cannot write {name}", e) from e
    os.close(out)
    return temporary


def _rename_all(fd: int, directory: str, temporaries: Sequence[tuple[str, str]]) -> None:
    """Rename each temporary over its name; if one fails, the files renamed before it are put back."""
    backups = [_backup(fd, name) for _, name in temporaries]
    done: list[int] = []
    try:
        for i, (temporary, name) in enumerate(temporaries):
            try:
                os.rename(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
            except OSError as e:
                for j in reversed(done):
                    _restore(fd, temporaries[j][1], backups[j])
                raise _fail(directory, f"cannot replace {name}", e) from e
            done.append(i)
    finally:
        for backup in backups:
            if backup:
                with contextlib.suppress(OSError):
                    os.unlink(backup, dir_fd=fd)


_NO_FILE = ""  # a backup of a name that had no file: restoring it removes the new one


def _backup(fd: int, name: str) -> str | None:
    """A second name for the file about to be replaced (_NO_FILE: there is none; None: it cannot be
    made, the filesystem has no hard links, and the file cannot be put back)."""
    backup = f".{name}.{secrets.token_hex(4)}.old"
    try:
        os.link(name, backup, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return _NO_FILE
    except OSError:
        return None
    return backup


def _restore(fd: int, name: str, backup: str | None) -> None:
    with contextlib.suppress(OSError):
        if backup == _NO_FILE:
            os.unlink(name, dir_fd=fd)
        elif backup is not None:
            os.rename(backup, name, src_dir_fd=fd, dst_dir_fd=fd)
