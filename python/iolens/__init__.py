"""iolens for Python: Darshan logs as pandas DataFrames, over the iolens C library.

    import iolens
    log = iolens.open("job.darshan")
    log.job["nprocs"], log.modules, log.mounts
    df = log.records("POSIX")        # one row per record: rank, id, file, then every counter
    tr = iolens.open("run.trace")    # an iolens trace, or a Recorder trace directory
    ev = tr.events()                 # one row per call; tr.events(chunk=100000) yields frames

The values are the ones `darshan-parser` (and `iolens darshan`) prints: the integer counters as
int64 columns, the floating-point ones as float64, under their Darshan names. Two exceptions,
where darshan-util's conversion of old logs is wrong and the frames hold what the log holds:
POSIX_F_VARIANCE_RANK_TIME/BYTES of POSIX records of format 3.0 and 3.1 (darshan-parser prints
0), and POSIX_F_META_TIME, _F_MAX_READ_TIME, _F_MAX_WRITE_TIME of those logs written big-endian
(darshan-parser prints them byte-swapped). The package is pure
Python over ctypes: it loads libiolens.so.0 (the environment variable IOLENS_LIB names another
file) and needs no compiler. Errors are raised as iolens.IolensError with the library's message,
which names the file and the byte offset.

The kind of input is told by its content, as the command line does."""

import ctypes
import os

__all__ = ["open", "DarshanLog", "Trace", "IolensError", "version", "features", "detect", "shap", "cluster",
           "export"]


class IolensError(Exception):
    """An error of the iolens library (its message names the file and the byte offset)."""


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    tried = []
    env = os.environ.get("IOLENS_LIB")
    candidates = [env] if env else []
    # installed: <prefix>/<libdir>/python3/dist-packages/iolens beside <prefix>/<libdir>/libiolens.so.0
    candidates.append(os.path.normpath(os.path.join(here, "..", "..", "..", "libiolens.so.0")))
    candidates.append("libiolens.so.0")  # the dynamic linker's own search (LD_LIBRARY_PATH, /usr/lib)
    for c in candidates:
        try:
            return ctypes.CDLL(c)
        except OSError as e:
            tried.append("%s (%s)" % (c, e))
    raise ImportError("cannot load the iolens library; tried " + "; ".join(tried) +
                      " (IOLENS_LIB=/path/to/libiolens.so.0 names it)")


_lib = _find_library()


class _Job(ctypes.Structure):
    _fields_ = [("uid", ctypes.c_int64), ("start_time_sec", ctypes.c_int64), ("start_time_nsec", ctypes.c_int64),
                ("end_time_sec", ctypes.c_int64), ("end_time_nsec", ctypes.c_int64), ("nprocs", ctypes.c_int64),
                ("jobid", ctypes.c_int64), ("run_time", ctypes.c_double), ("metadata", ctypes.c_char * 1025),
                ("exe", ctypes.c_char_p)]


class _Header(ctypes.Structure):  # the leading fields of iolens_darshan_header
    _fields_ = [("version", ctypes.c_char * 9), ("major", ctypes.c_int), ("minor", ctypes.c_int),
                ("big_endian", ctypes.c_int)]


class _Event(ctypes.Structure):  # iolens_event (include/iolens/event.h)
    _fields_ = [("rank", ctypes.c_int32), ("thread", ctypes.c_uint32), ("depth", ctypes.c_uint32),
                ("layer", ctypes.c_int), ("op", ctypes.c_int), ("flags", ctypes.c_uint32), ("func", ctypes.c_char_p),
                ("tstart", ctypes.c_double), ("tend", ctypes.c_double), ("file", ctypes.c_int64),
                ("offset", ctypes.c_int64), ("size", ctypes.c_int64), ("ret", ctypes.c_int64), ("err", ctypes.c_int32),
                ("open_flags", ctypes.c_int32), ("mode", ctypes.c_int32), ("whence", ctypes.c_int32),
                ("nargs", ctypes.c_uint32), ("args", ctypes.POINTER(ctypes.c_char_p)), ("buf_pgoff1", ctypes.c_uint32),
                ("lib_depth", ctypes.c_uint32), ("self_after", ctypes.c_double)]


_NLAYERS = 9  # iolens_layer: POSIX .. NETCDF


class _File(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int64), ("path", ctypes.c_char_p)]


class _RecorderOptions(ctypes.Structure):
    _fields_ = [("max_file_bytes", ctypes.c_uint64), ("max_records", ctypes.c_uint64), ("warn", ctypes.c_void_p),
                ("warn_ctx", ctypes.c_void_p)]


class _Mount(ctypes.Structure):
    _fields_ = [("path", ctypes.c_char_p), ("fs_type", ctypes.c_char_p)]


class _Seg(ctypes.Structure):  # iolens_darshan_dxt_seg
    _fields_ = [("offset", ctypes.c_int64), ("length", ctypes.c_int64), ("start", ctypes.c_double),
                ("end", ctypes.c_double), ("pthread_id", ctypes.c_uint64)]


class _Record(ctypes.Structure):  # iolens_darshan_record (include/iolens/darshan.h)
    _fields_ = [("module", ctypes.c_int), ("version", ctypes.c_uint32), ("id", ctypes.c_uint64),
                ("rank", ctypes.c_int64), ("ncounters", ctypes.c_size_t),
                ("counters", ctypes.POINTER(ctypes.c_int64)), ("nfcounters", ctypes.c_size_t),
                ("fcounters", ctypes.POINTER(ctypes.c_double)), ("file_rec_id", ctypes.c_uint64),
                ("pool_uuid", ctypes.c_ubyte * 16), ("cont_uuid", ctypes.c_ubyte * 16), ("oid_hi", ctypes.c_uint64),
                ("oid_lo", ctypes.c_uint64), ("num_comps", ctypes.c_int64), ("num_stripes", ctypes.c_int64),
                ("comps", ctypes.c_void_p), ("osts", ctypes.c_void_p), ("bin_width", ctypes.c_double),
                ("nbins", ctypes.c_int64), ("write_bins", ctypes.POINTER(ctypes.c_int64)),
                ("read_bins", ctypes.POINTER(ctypes.c_int64)), ("shared_record", ctypes.c_int64),
                ("hostname", ctypes.c_char * 65), ("write_count", ctypes.c_int64), ("read_count", ctypes.c_int64),
                ("segs", ctypes.POINTER(_Seg)), ("has_pthread_id", ctypes.c_int)]


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_vp, _sz, _int = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
_version = _fn("iolens_version", ctypes.c_char_p)
_error_last = _fn("iolens_error_last", ctypes.c_char_p)
_load = _fn("iolens_darshan_load", _int, ctypes.c_char_p, _int, _vp, _vp, ctypes.POINTER(_vp))
_free = _fn("iolens_darshan_data_free", None, _vp)
_data_log = _fn("iolens_darshan_data_log", _vp, _vp)
_job_get = _fn("iolens_darshan_job_get", ctypes.POINTER(_Job), _vp)
_header_get = _fn("iolens_darshan_header_get", ctypes.POINTER(_Header), _vp)
_mount_count = _fn("iolens_darshan_mount_count", _sz, _vp)
_mount_at = _fn("iolens_darshan_mount_at", ctypes.POINTER(_Mount), _vp, _sz)
_count = _fn("iolens_darshan_data_count", _sz, _vp, _int)
_record = _fn("iolens_darshan_data_record", ctypes.POINTER(_Record), _vp, _int, _sz)
_name = _fn("iolens_darshan_data_name", ctypes.c_char_p, _vp, ctypes.c_uint64)
_name_count = _fn("iolens_darshan_data_name_count", _sz, _vp)
_name_at = _fn("iolens_darshan_data_name_at", _int, _vp, _sz, ctypes.POINTER(ctypes.c_uint64),
               ctypes.POINTER(ctypes.c_char_p))
_module_name = _fn("iolens_darshan_module_name", ctypes.c_char_p, _int)
_module_from_name = _fn("iolens_darshan_module_from_name", _int, ctypes.c_char_p)
_columns = _fn("iolens_darshan_data_columns", _int, _vp, _int, _vp, _vp, _vp, _vp)
_dxt_count = _fn("iolens_darshan_data_dxt_count", ctypes.c_int64, _vp, _int)
_dxt_columns = _fn("iolens_darshan_data_dxt_columns", _int, _vp, _int, _vp, _vp, _vp, _vp, _vp, _vp, _vp, _vp, _vp)
_dxt_hostnames = _fn("iolens_darshan_data_dxt_hostnames", _int, _vp, _int, _vp)
_counter_count = _fn("iolens_darshan_counter_count", _sz, _int)
_fcounter_count = _fn("iolens_darshan_fcounter_count", _sz, _int)
_counter_name = _fn("iolens_darshan_counter_name", ctypes.c_char_p, _int, _sz)
_fcounter_name = _fn("iolens_darshan_fcounter_name", ctypes.c_char_p, _int, _sz)

_kind = _fn("iolens_detect_kind", _int, ctypes.c_char_p)
_trace_open = _fn("iolens_trace_open", _int, ctypes.c_char_p, ctypes.POINTER(_vp))
_recorder_open = _fn("iolens_recorder_open", _int, ctypes.c_char_p, ctypes.POINTER(_vp),
                     ctypes.POINTER(_RecorderOptions))
_ev_nranks = _fn("iolens_evsource_nranks", _int, _vp)
_ev_files = _fn("iolens_evsource_files", _int, _vp, ctypes.POINTER(ctypes.POINTER(_File)), ctypes.POINTER(_sz))
_ev_next = _fn("iolens_evsource_next", _int, _vp, _int, ctypes.POINTER(_Event))
_ev_rewind = _fn("iolens_evsource_rewind", _int, _vp, _int)
_ev_free = _fn("iolens_evsource_free", None, _vp)
_op_name = _fn("iolens_op_name", ctypes.c_char_p, _int)
_layer_name = _fn("iolens_layer_name", ctypes.c_char_p, _int)
_KIND_DARSHAN, _KIND_TEXT, _KIND_TRACE, _KIND_RECORDER = 1, 2, 3, 4


class _ReadOpts(ctypes.Structure):  # iolens_detect_read_opts
    _fields_ = [("all_paths", ctypes.c_int), ("warn", ctypes.c_void_p), ("warn_ctx", ctypes.c_void_p),
                ("progress", ctypes.c_void_p), ("progress_ctx", ctypes.c_void_p)]


class _DetectFile(ctypes.Structure):  # iolens_detect_file
    _fields_ = [("record_id", ctypes.c_uint64), ("path", ctypes.c_char_p), ("bytes", ctypes.c_int64),
                ("ops", ctypes.c_int64), ("small_ops", ctypes.c_int64), ("ranks", ctypes.c_int64),
                ("mpiio_indep", ctypes.c_int64), ("mpiio_coll", ctypes.c_int64)]


_NF, _NL, _NP = 171, 8, 7  # IOLENS_DETECT_NFEATURES, _NLABELS, _NPATTERNS
_dread = _fn("iolens_detect_read", _int, ctypes.POINTER(_vp), ctypes.c_char_p, ctypes.POINTER(_ReadOpts))
_dfree = _fn("iolens_detect_input_free", None, _vp)
_dfeat = _fn("iolens_detect_input_features", _int, _vp, ctypes.POINTER(ctypes.c_double))
_dtop = _fn("iolens_detect_input_top_files", _int, _vp, ctypes.POINTER(_DetectFile), _int)
_fname = _fn("iolens_detect_feature_name", ctypes.c_char_p, _int)
_lname = _fn("iolens_detect_label_name", ctypes.c_char_p, _int)
_mdir = _fn("iolens_detect_default_models_dir", ctypes.c_char_p)
_mload = _fn("iolens_detect_model_load", _int, ctypes.POINTER(_vp), ctypes.c_char_p)
_mfree = _fn("iolens_detect_model_free", None, _vp)
_predict = _fn("iolens_detect_predict", _int, _vp, ctypes.POINTER(ctypes.c_double), _sz, ctypes.POINTER(ctypes.c_double))
_contribs = _fn("iolens_detect_contribs", _int, _vp, ctypes.POINTER(ctypes.c_double), _int,
                ctypes.POINTER(ctypes.c_double))
_gate = _fn("iolens_detect_gate", ctypes.c_uint, ctypes.POINTER(ctypes.c_double), ctypes.c_double)
_premises = _fn("iolens_detect_premises", ctypes.c_uint, ctypes.POINTER(ctypes.c_double), ctypes.c_uint,
                ctypes.POINTER(ctypes.c_char_p))
_rules = _fn("iolens_detect_rules", ctypes.c_uint, ctypes.POINTER(ctypes.c_double), ctypes.c_char_p, _sz)

_MODULE_COUNT = 18  # iolens_darshan_module: ids 1..17
_DXT = {"DXT_POSIX", "DXT_MPIIO"}


def version():
    """The library's version string."""
    return _version().decode()


def _s(b):
    return b.decode("utf-8", "replace") if b else ""


class _Closing:
    """Context manager and finaliser of an object holding a library handle (close() frees it)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


class DarshanLog(_Closing):
    """A Darshan log read whole (header, job, mount table, names, every record; the DXT
    segments too when opened with dxt=True, else when dxt() first asks for them). Use as a
    context manager or call close()."""

    _h = None

    def __init__(self, path, dxt=False):
        self.path = os.fspath(path)
        h = _vp()
        if _load(self.path.encode(), 0 if dxt else 1, None, None, ctypes.byref(h)) < 0:
            raise IolensError(_s(_error_last()))
        self._h = h
        self._with_dxt = bool(dxt)
        log = _data_log(h)
        hd = _header_get(log).contents
        self.version = _s(hd.version)  # the log format's version, e.g. "3.41"
        self.big_endian = bool(hd.big_endian)  # written on a big-endian machine (read swapped)
        j = _job_get(log).contents
        meta = {}
        for line in _s(j.metadata).splitlines():
            k, sep, v = line.partition("=")
            if sep:
                meta[k] = v
        self.job = {"uid": j.uid, "jobid": j.jobid, "nprocs": j.nprocs,
                    "start_time": j.start_time_sec + j.start_time_nsec * 1e-9,
                    "end_time": j.end_time_sec + j.end_time_nsec * 1e-9,
                    "run_time": j.run_time, "exe": _s(j.exe), "metadata": meta}
        self.mounts = []
        for i in range(_mount_count(log)):
            m = _mount_at(log, i).contents
            self.mounts.append((_s(m.path), _s(m.fs_type)))
        self.modules = [_s(_module_name(m)) for m in range(1, _MODULE_COUNT)
                        if _module_name(m) and _count(h, m) > 0 and _s(_module_name(m)) not in _DXT]

    def close(self):
        if self._h:
            _free(self._h)
            self._h = None
        if getattr(self, "_hd", None):
            _free(self._hd)
            self._hd = None


    def _module(self, module):
        m = _module_from_name(module.encode())
        if m <= 0 and module == "MPIIO":  # the record lines' spelling
            m = _module_from_name(b"MPI-IO")
        if m <= 0 or module in _DXT:
            raise IolensError("unknown module '%s' (the log has %s)" % (module, ", ".join(self.modules) or "none"))
        return m

    def _dxt_handle(self):
        """The log with its DXT segments: the one loaded when opened with dxt=True, else loaded
        again the first time they are asked for."""
        if self._with_dxt:
            return self._h
        if not getattr(self, "_hd", None):
            h = _vp()
            if _load(self.path.encode(), 0, None, None, ctypes.byref(h)) < 0:
                raise IolensError(_s(_error_last()))
            self._hd = h
        return self._hd

    def dxt(self, module="DXT_POSIX"):
        """The DXT segments of a module (DXT_POSIX or DXT_MPIIO) as a DataFrame, one row per
        call: rank, id, file, hostname, op (write or read), offset, length, start, end (seconds
        since the job start), thread (the pthread id; 0 when the log has none). Empty when the
        log has no DXT."""
        import pandas as pd
        if module not in _DXT:
            raise IolensError("dxt() takes DXT_POSIX or DXT_MPIIO, not '%s'" % module)
        h = self._dxt_handle()
        m = _module_from_name(module.encode())
        import numpy as np
        n = _dxt_count(h, m)
        if n < 0:
            raise IolensError(_s(_error_last()))
        # the library fills every column in one call, each into its own contiguous array
        cols = {"rank": np.empty(n, np.int64), "id": np.empty(n, np.uint64), "offset": np.empty(n, np.int64),
                "length": np.empty(n, np.int64), "start": np.empty(n, np.float64), "end": np.empty(n, np.float64),
                "thread": np.empty(n, np.uint64)}
        writes = np.empty(n, dtype=np.int8)
        rec = np.empty(n, dtype=np.int64)
        if n and _dxt_columns(h, m, *(cols[k].ctypes.data for k in ("rank", "id", "offset", "length", "start",
                                                                    "end", "thread")),
                              writes.ctypes.data, rec.ctypes.data) < 0:
            raise IolensError(_s(_error_last()))
        nrec = _count(h, m)
        ids = np.empty(nrec, dtype=np.uint64)
        hosts = np.zeros(nrec, dtype="S65")
        if nrec and (_columns(h, m, None, ids.ctypes.data, None, None) < 0 or
                     _dxt_hostnames(h, m, hosts.ctypes.data) < 0):
            raise IolensError(_s(_error_last()))
        nmap = self._name_map()

        def cat(values):  # a categorical column from one value per record, without hashing every row
            cats, codes = np.unique(values, return_inverse=True)
            cats = [c.decode("utf-8", "replace") if isinstance(c, bytes) else c for c in cats.tolist()]
            return pd.Categorical.from_codes(codes[rec] if n else codes[:0], categories=cats)

        names = np.array([nmap.get(i, "") for i in ids.tolist()], dtype=object)
        return pd.DataFrame({"rank": cols["rank"], "id": cols["id"], "file": cat(names), "hostname": cat(hosts),
                             "op": pd.Categorical.from_codes(writes, categories=["read", "write"]),
                             "offset": cols["offset"], "length": cols["length"], "start": cols["start"],
                             "end": cols["end"], "thread": cols["thread"]}, copy=False)

    def heatmap(self):
        """The HEATMAP module's bins as a DataFrame, one row per (record, bin): rank, api (the
        record's name after "heatmap:", e.g. POSIX), bin, start and width (seconds), read_bytes,
        write_bytes. Empty when the log has no heatmap."""
        import pandas as pd
        m = _module_from_name(b"HEATMAP")
        rows = []
        for i in range(_count(self._h, m)):
            r = _record(self._h, m, i).contents
            api = self.name(r.id)
            api = api[8:] if api.startswith("heatmap:") else api
            for b in range(r.nbins):
                rows.append((r.rank, api, b, b * r.bin_width, r.bin_width,
                             r.read_bins[b] if r.read_bins else 0, r.write_bins[b] if r.write_bins else 0))
        df = pd.DataFrame.from_records(rows, columns=["rank", "api", "bin", "start", "width", "read_bytes",
                                                      "write_bytes"])
        for c in ("rank", "bin", "read_bytes", "write_bytes"):
            df[c] = df[c].astype("int64")
        return df

    def _name_map(self):
        """Every record id's name, read once."""
        if getattr(self, "_names", None) is None:
            names, rid, nm = {}, ctypes.c_uint64(), ctypes.c_char_p()
            for i in range(_name_count(self._h)):
                if _name_at(self._h, i, ctypes.byref(rid), ctypes.byref(nm)) == 0 and rid.value not in names:
                    names[rid.value] = _s(nm.value)
            self._names = names
        return self._names

    def name(self, record_id):
        """The file name of a record id ("" when the log has none)."""
        return self._name_map().get(int(record_id), "")

    def records(self, module):
        """The records of a module as a pandas DataFrame: columns rank, id, file, then the integer
        counters (int64) and the floating-point ones (float64), named as Darshan names them."""
        import pandas as pd
        if not self._h:
            raise IolensError("the log is closed")
        m = self._module(module)
        n = _count(self._h, m)
        ni, nf = _counter_count(m), _fcounter_count(m)
        icols = [_s(_counter_name(m, i)) for i in range(ni)]
        fcols = [_s(_fcounter_name(m, i)) for i in range(nf)]
        import numpy as np
        ranks = np.zeros(n, dtype=np.int64)
        ids = np.zeros(n, dtype=np.uint64)
        ivals = np.zeros((n, ni), dtype=np.int64)
        fvals = np.zeros((n, nf), dtype=np.float64)
        if n and _columns(self._h, m, ranks.ctypes.data, ids.ctypes.data, ivals.ctypes.data if ni else None,
                          fvals.ctypes.data if nf else None) < 0:
            raise IolensError(_s(_error_last()))
        nmap = self._name_map()
        files = [nmap.get(i, "") for i in ids.tolist()]
        df = pd.concat([pd.DataFrame({"rank": ranks, "id": ids, "file": files}),
                        pd.DataFrame(ivals, columns=icols), pd.DataFrame(fvals, columns=fcols)], axis=1)
        return df


_EVENT_COLUMNS = ["rank", "thread", "depth", "layer", "function", "op", "file", "offset", "size", "start", "end",
                  "ret", "errno"]


class Trace(_Closing):
    """An iolens trace file or a Recorder trace directory: its calls, rank by rank."""

    _src = None

    def __init__(self, path):
        self.path = os.fspath(path)
        src = _vp()
        k = _kind(self.path.encode())
        if k == _KIND_TRACE:
            rc = _trace_open(self.path.encode(), ctypes.byref(src))
        elif k == _KIND_RECORDER:
            rc = _recorder_open(self.path.encode(), ctypes.byref(src), ctypes.byref(_RecorderOptions()))
        else:
            rc = -1
        if rc < 0:
            if k in (_KIND_TRACE, _KIND_RECORDER) or k < 0:  # the reader's (or the look's) own message
                raise IolensError(_s(_error_last()) or "cannot read '%s'" % self.path)
            raise IolensError("cannot read '%s': not an iolens trace (no IOLTRACE magic at byte 0) nor a "
                              "Recorder trace directory" % self.path)
        self._src = src
        self.nranks = _ev_nranks(src)
        files, n = ctypes.POINTER(_File)(), _sz()
        if _ev_files(src, ctypes.byref(files), ctypes.byref(n)) < 0:
            raise IolensError(_s(_error_last()))
        self.files = [_s(files[i].path) for i in range(n.value)]
        self._ops = [_s(_op_name(i)) for i in range(32)]
        self._layers = [_s(_layer_name(i)) for i in range(_NLAYERS)]

    def close(self):
        if self._src:
            _ev_free(self._src)
            self._src = None


    def _rows(self):
        if not self._src:
            raise IolensError("the trace is closed")
        e = _Event()
        nf = len(self.files)
        for r in range(self.nranks):
            if _ev_rewind(self._src, r) < 0:
                raise IolensError(_s(_error_last()))
            while True:
                rc = _ev_next(self._src, r, ctypes.byref(e))
                if rc < 0:
                    raise IolensError(_s(_error_last()))
                if rc == 0:
                    break
                yield (e.rank, e.thread, e.depth, self._layers[e.layer] if 0 <= e.layer < _NLAYERS else "",
                       _s(e.func), self._ops[e.op] if 0 <= e.op < 32 else "",
                       self.files[e.file] if 0 <= e.file < nf else "", e.offset, e.size, e.tstart, e.tend, e.ret, e.err)

    def _frame(self, rows):
        import pandas as pd
        df = pd.DataFrame.from_records(rows, columns=_EVENT_COLUMNS)
        for c in ("rank", "thread", "depth", "offset", "size", "ret", "errno"):
            df[c] = df[c].astype("int64")
        return df

    def events(self, chunk=None):
        """Every call as a DataFrame (columns rank, thread, depth, layer, function, op, file, offset,
        size, start, end, ret, errno; times in seconds since the job start; offset and size -1
        where they do not apply), rank after rank in call order. With chunk=N: a generator of
        frames of at most N calls each, for traces too big to hold at once."""
        if chunk is None:
            return self._frame(list(self._rows()))
        if chunk < 1:
            raise ValueError("chunk must be at least 1")
        return self._chunks(chunk)

    def _chunks(self, chunk):
        rows = []
        for row in self._rows():
            rows.append(row)
            if len(rows) == chunk:
                yield self._frame(rows)
                rows = []
        if rows:
            yield self._frame(rows)


def _row(path, all_paths):
    """(171 features, files with records) of one input."""
    h = _vp()
    o = _ReadOpts(all_paths=1 if all_paths else 0)
    if _dread(ctypes.byref(h), os.fspath(path).encode(), ctypes.byref(o)) < 0:
        raise IolensError(_s(_error_last()))
    try:
        x = (ctypes.c_double * _NF)()
        if _dfeat(h, x) < 0:
            raise IolensError(_s(_error_last()))
        files = (_DetectFile * 1)()
        n = _dtop(h, files, 1)
        return x, n
    finally:
        _dfree(h)


def _paths(paths):
    return [os.fspath(paths)] if isinstance(paths, (str, bytes, os.PathLike)) else [os.fspath(p) for p in paths]


def features(paths, all_paths=False):
    """The 171 model features (IOSage's 157, then iolens's process-level iol_*) of each input (a
    Darshan log, darshan-parser text, an iolens trace or a Recorder trace) as a DataFrame, one
    row per input, indexed by its path; the values `iolens features` prints."""
    import pandas as pd
    names = [_s(_fname(i)) for i in range(_NF)]
    rows = {p: list(_row(p, all_paths)[0]) for p in _paths(paths)}
    return pd.DataFrame.from_dict(rows, orient="index", columns=names)


class _Model:
    def __init__(self, models):
        self.h = _vp()
        d = os.fspath(models) if models else os.environ.get("IOLENS_MODELS") or _s(_mdir())
        if _mload(ctypes.byref(self.h), d.encode()) < 0:
            raise IolensError(_s(_error_last()))

    def __del__(self):
        if self.h:
            _mfree(self.h)


def detect(paths, models=None, tau=0.3, all_paths=False):
    """The diagnosis of each input as `iolens detect` gives it: a DataFrame indexed by path with
    the probability of each of the 8 labels (the seven patterns and healthy), `detected` (the
    patterns presented, ";"-separated: probability >= tau and the counters show the card's
    premise) and `rules` (the rule baseline's codes). models: the model folder (default
    $IOLENS_MODELS, else the installed models)."""
    import pandas as pd
    m = _Model(models)
    labels = [_s(_lname(i)) for i in range(_NL)]
    out = {}
    for p in _paths(paths):
        x, nfiles = _row(p, all_paths)
        probs = (ctypes.c_double * _NL)()
        if _predict(m.h, x, 1, probs) < 0:
            raise IolensError(_s(_error_last()))
        gated = _gate(probs, tau) if nfiles > 0 else 0
        why = (ctypes.c_char_p * _NP)()
        shown = _premises(x, gated, why)
        codes = ctypes.create_string_buffer(128)
        _rules(x, codes, 128)
        row = {l: probs[i] for i, l in enumerate(labels)}
        row["detected"] = ";".join(labels[i] for i in range(_NP) if shown & (1 << i))
        row["rules"] = _s(codes.value)
        out[p] = row
    return pd.DataFrame.from_dict(out, orient="index")


def shap(path, pattern, models=None, all_paths=False):
    """The SHAP contributions (log-odds) of every feature to one pattern's probability for one
    input, as a pandas Series indexed by feature name, largest magnitude first; the bias is the
    Series' attribute `bias`."""
    import pandas as pd
    labels = [_s(_lname(i)) for i in range(_NL)]
    if pattern not in labels:
        raise IolensError("unknown pattern '%s' (one of %s)" % (pattern, ", ".join(labels)))
    m = _Model(models)
    x, _ = _row(path, all_paths)
    out = (ctypes.c_double * (_NF + 1))()
    if _contribs(m.h, x, labels.index(pattern), out) < 0:
        raise IolensError(_s(_error_last()))
    sr = pd.Series([out[i] for i in range(_NF)], index=[_s(_fname(i)) for i in range(_NF)], name=pattern)
    sr = sr.reindex(sr.abs().sort_values(ascending=False).index)
    sr.attrs["bias"] = out[_NF]
    return sr


class _SeriesView(ctypes.Structure):  # iolens_series
    _fields_ = [("id", ctypes.c_char_p), ("direction", ctypes.c_int), ("step_s", ctypes.c_double),
                ("n", ctypes.c_size_t), ("mibs", ctypes.POINTER(ctypes.c_double)), ("label", ctypes.c_int)]


class _ReadSeriesOpts(ctypes.Structure):  # iolens_series_read_opts
    _fields_ = [("format", ctypes.c_int), ("step_s", ctypes.c_double)]


class _FilterOpts(ctypes.Structure):  # iolens_filter_opts
    _fields_ = [("min_samples", ctypes.c_size_t), ("max_samples", ctypes.c_size_t), ("zero_below", ctypes.c_double),
                ("min_nonzero", ctypes.c_size_t)]


class _ClusterOpts(ctypes.Structure):  # iolens_cluster_opts
    _fields_ = [("method", ctypes.c_int), ("seed", ctypes.c_uint64), ("threads", ctypes.c_uint),
                ("window", ctypes.c_uint), ("genome_len", ctypes.c_uint), ("resample_len", ctypes.c_uint),
                ("kmin", ctypes.c_uint), ("kmax", ctypes.c_uint), ("level_kmax", ctypes.c_uint), ("k", ctypes.c_uint),
                ("min_cluster", ctypes.c_uint), ("elbow_sample", ctypes.c_size_t), ("fit_sample", ctypes.c_size_t),
                ("progress", ctypes.c_void_p), ("progress_ctx", ctypes.c_void_p), ("dist", ctypes.c_void_p)]


_set_new = _fn("iolens_series_set_new", _int, ctypes.POINTER(_vp))
_set_free = _fn("iolens_series_set_free", None, _vp)
_set_add = _fn("iolens_series_set_add", _int, _vp, ctypes.c_char_p, _int, ctypes.c_double,
               ctypes.POINTER(ctypes.c_double), _sz, _int)
_set_count = _fn("iolens_series_set_count", _sz, _vp)
_set_get = _fn("iolens_series_set_get", None, _vp, _sz, ctypes.POINTER(_SeriesView))
_read_opts_init = _fn("iolens_series_read_opts_init", None, ctypes.POINTER(_ReadSeriesOpts))
_read_series = _fn("iolens_series_read_file", _int, _vp, ctypes.c_char_p, ctypes.POINTER(_ReadSeriesOpts))
_filter_init = _fn("iolens_filter_opts_init", None, ctypes.POINTER(_FilterOpts))
_filter = _fn("iolens_series_filter", _int, ctypes.POINTER(_vp), _vp, ctypes.POINTER(_FilterOpts))
_copts_init = _fn("iolens_cluster_opts_init", None, ctypes.POINTER(_ClusterOpts))
_method_parse = _fn("iolens_cluster_method_parse", _int, ctypes.c_char_p)
_cluster_run = _fn("iolens_cluster_run", _int, ctypes.POINTER(_vp), _vp, ctypes.POINTER(_ClusterOpts))
_clustering_free = _fn("iolens_clustering_free", None, _vp)
_clustering_k = _fn("iolens_clustering_k", _sz, _vp)
_clustering_labels = _fn("iolens_clustering_labels", ctypes.POINTER(_int), _vp, ctypes.POINTER(_sz))
_clustering_name = _fn("iolens_clustering_name", ctypes.c_char_p, _vp, _sz)
_clustering_size = _fn("iolens_clustering_size", _sz, _vp, _sz)
_clustering_centroid = _fn("iolens_clustering_centroid", ctypes.POINTER(ctypes.c_double), _vp, _sz, ctypes.POINTER(_sz))


def cluster(series, method="sage", k=0, seed=0, step=1.0, filter=True):
    """Clusters I/O time series as `iolens cluster` does (SAGE, SAGE-2 or a baseline).

    series: a path or a list of paths (series CSV in any layout `iolens cluster` reads, Darshan
    logs, traces), or a DataFrame whose rows are series in MiB/s (index: ids; NaN ends a row),
    or a dict id -> sequence of MiB/s. step: seconds per sample of CSV and in-memory series.
    filter: the pre-processing `iolens cluster` applies (short and idle series dropped).
    Returns (assignments, centroids): a DataFrame of id -> cluster, and one row per cluster
    (size, then its centroid in MiB/s)."""
    import pandas as pd
    m = _method_parse(method.encode())
    if m < 0:
        raise IolensError("unknown method '%s'" % method)
    raw = _vp()
    if _set_new(ctypes.byref(raw)) < 0:
        raise IolensError(_s(_error_last()))
    keep, c = None, _vp()
    try:
        if isinstance(series, (str, bytes, os.PathLike, list, tuple)) and not isinstance(series, dict):
            ro = _ReadSeriesOpts()
            _read_opts_init(ctypes.byref(ro))
            ro.step_s = step
            for p in _paths(series):
                if _read_series(raw, p.encode(), ctypes.byref(ro)) < 0:
                    raise IolensError(_s(_error_last()))
        else:
            items = series.items() if isinstance(series, dict) else \
                ((i, r.dropna().to_numpy()) for i, r in series.iterrows())
            for sid, vals in items:
                v = [float(x) for x in vals]
                arr = (ctypes.c_double * len(v))(*v)
                if _set_add(raw, str(sid).encode(), 0, step, arr, len(v), -1) < 0:
                    raise IolensError(_s(_error_last()))
        src = raw
        if filter:
            fo = _FilterOpts()
            _filter_init(ctypes.byref(fo))
            keep = _vp()
            if _filter(ctypes.byref(keep), raw, ctypes.byref(fo)) < 0:
                raise IolensError(_s(_error_last()))
            src = keep
        n = _set_count(src)
        if n == 0:
            raise IolensError("no series left to cluster (%s)" % ("after the filter" if filter else "empty input"))
        co = _ClusterOpts()
        _copts_init(ctypes.byref(co))
        co.method, co.seed, co.k = m, seed, k
        if _cluster_run(ctypes.byref(c), src, ctypes.byref(co)) < 0:
            raise IolensError(_s(_error_last()))
        nl = _sz()
        labels = _clustering_labels(c, ctypes.byref(nl))
        names = [_s(_clustering_name(c, j)) for j in range(_clustering_k(c))]
        ids = []
        view = _SeriesView()
        for i in range(n):
            _set_get(src, i, ctypes.byref(view))
            ids.append(_s(view.id))
        assign = pd.DataFrame({"cluster": [names[labels[i]] for i in range(nl.value)]}, index=pd.Index(ids, name="id"))
        rows = {}
        for j, name in enumerate(names):
            ln = _sz()
            cen = _clustering_centroid(c, j, ctypes.byref(ln))
            rows[name] = [_clustering_size(c, j)] + [cen[t] for t in range(ln.value)]
        cen = pd.DataFrame.from_dict(rows, orient="index")
        cen.columns = ["size"] + list(range(len(cen.columns) - 1))
        cen.index.name = "cluster"
        return assign, cen
    finally:
        if c:
            _clustering_free(c)
        if keep:
            _set_free(keep)
        _set_free(raw)


def _have_parquet():
    try:
        import pyarrow  # noqa: F401
        return True
    except ImportError:
        return False


def export(path, outdir, format="auto"):
    """Writes the tables of a log or trace into outdir, one file per table: a log's records per
    module (<MODULE>.parquet|csv), its DXT segments (DXT_POSIX, DXT_MPIIO) and heatmap bins
    (HEATMAP) when it has them; a trace's calls (events). format: "parquet" (needs pyarrow),
    "csv", or "auto" (Parquet when pyarrow is installed, else CSV). Returns the files written."""
    if format == "auto":
        format = "parquet" if _have_parquet() else "csv"
    if format not in ("parquet", "csv"):
        raise IolensError("format must be parquet, csv or auto, not '%s'" % format)
    if format == "parquet" and not _have_parquet():
        raise IolensError("Parquet output needs pyarrow (Debian: python3-pyarrow, where available); format='csv' "
                          "writes CSV")
    os.makedirs(outdir, exist_ok=True)
    written = []

    def put(name, df):
        f = os.path.join(outdir, "%s.%s" % (name.replace("/", "_"), format))
        if format == "parquet":
            df.to_parquet(f, index=False)
        else:
            df.to_csv(f, index=False)
        written.append(f)

    with open(path, dxt=True) as src:
        if isinstance(src, Trace):
            for i, part in enumerate(src.events(chunk=1000000)):
                put("events" if i == 0 else "events.%d" % i, part)
        else:
            for m in src.modules:
                if m != "HEATMAP":
                    put(m, src.records(m))
            for m in ("DXT_POSIX", "DXT_MPIIO"):
                df = src.dxt(m)
                if len(df):
                    put(m, df)
            hm = src.heatmap()
            if len(hm):
                put("HEATMAP", hm)
    return written


def open(path, dxt=False):
    """Opens a binary Darshan log (DarshanLog; dxt=True reads its DXT segments at once), an
    iolens trace or a Recorder trace directory (Trace), told apart by content."""
    k = _kind(os.fspath(path).encode())
    if k in (_KIND_TRACE, _KIND_RECORDER):
        return Trace(path)
    return DarshanLog(path, dxt=dxt)
