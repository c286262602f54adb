"""One case on the NPU through a custom operator's aclnn two-phase API, in a process of its own.

``python -m opkit.backends.aclnn_worker REQUEST.json`` loads ``libascendcl`` and ``libnnopbase`` (CANN's
runtime) and the package's ``libcust_opapi``, copies the inputs to the device, creates an ``aclTensor`` per
tensor (ND strides) and an ``aclTensorList`` (``aclCreateTensorList``) per dynamic (list) input or output,
calls ``aclnn<Op>GetWorkspaceSize(inputs..., attrs..., outputs..., &size, &executor)`` and
``aclnn<Op>(workspace, size, executor, stream)``, waits for the stream, copies the outputs back, destroys the
tensors and lists, and writes ``REQUEST.json.result.json``. A rank of a multi-rank case (the request's ``hccl``)
first makes its HCCL communicator (:func:`communicator`) and passes its name as the op's group attr, and
destroys it at the end (:mod:`opkit.backends.npu_ranks`). A failure is one line ``opkit-aclnn: error: ...`` on
stderr, exit 1. The request is written by :mod:`opkit.backends.npu_runner`.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ERROR = "opkit-aclnn: error: "
MEMCPY_HOST_TO_DEVICE, MEMCPY_DEVICE_TO_HOST = 1, 2
MALLOC_HUGE_FIRST = 0
HCCL_ROOT_INFO_BYTES = 4108  # sizeof(HcclRootInfo), hccl_types.h
HCCL_COMM_NAME_BYTES = 128  # the commName buffer HcclGetCommName fills


class Failure(Exception):
    pass


def _lib(path: str) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
    except OSError as exc:
        raise Failure(f"cannot load {path}: {exc} (source CANN's set_env.sh)") from None


class Acl:
    def __init__(self, req: dict[str, Any]) -> None:
        self.rt = _lib(req["libascendcl"])
        self.nn = _lib(req["libnnopbase"])
        self.hccl = _lib(req["hccl"]["lib"]) if req.get("hccl") else None  # before the operators that call it
        self.op = _lib(req["libcust_opapi"])
        self.rt.aclrtMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_int]
        self.rt.aclrtMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
                                        ctypes.c_int]
        self.rt.aclrtFree.argtypes = [ctypes.c_void_p]
        self.nn.aclCreateTensor.restype = ctypes.c_void_p
        self.nn.aclCreateTensor.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64, ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64, ctypes.c_void_p]
        self.nn.aclDestroyTensor.argtypes = [ctypes.c_void_p]
        self.lists: list[ctypes.c_void_p] = []  # destroyed with their tensors (aclDestroyTensorList)
        self.tensors: list[ctypes.c_void_p] = []  # the tensors of no list
        for name, ctype in (("aclCreateIntArray", ctypes.c_int64), ("aclCreateFloatArray", ctypes.c_float),
                            ("aclCreateBoolArray", ctypes.c_bool)):
            fn = getattr(self.nn, name, None)
            if fn is not None:
                fn.restype = ctypes.c_void_p
                fn.argtypes = [ctypes.POINTER(ctype), ctypes.c_uint64]

    def check(self, rc: int, what: str) -> None:
        if rc != 0:
            msg = ""
            fn = getattr(self.rt, "aclGetRecentErrMsg", None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                raw = fn()
                msg = f": {raw.decode(errors='replace')}" if raw else ""
            raise Failure(f"{what} returned {rc}{msg}")

    def device(self, data: bytes) -> ctypes.c_void_p:
        ptr = ctypes.c_void_p()
        self.check(self.rt.aclrtMalloc(ctypes.byref(ptr), max(len(data), 1), MALLOC_HUGE_FIRST), "aclrtMalloc")
        if data:
            buf = ctypes.create_string_buffer(data, len(data))
            self.check(self.rt.aclrtMemcpy(ptr, len(data), buf, len(data), MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")
        return ptr

    def tensor(self, shape: list[int], dtype: int, fmt: int, ptr: ctypes.c_void_p) -> ctypes.c_void_p:
        n = len(shape)
        dims = (ctypes.c_int64 * max(n, 1))(*shape)
        strides = (ctypes.c_int64 * max(n, 1))()
        step = 1
        for i in range(n - 1, -1, -1):
            strides[i] = step
            step *= shape[i]
        t = self.nn.aclCreateTensor(dims, n, dtype, strides, 0, fmt, dims, n, ptr)
        if not t:
            raise Failure(f"aclCreateTensor({shape}) failed")
        self.tensors.append(ctypes.c_void_p(t))
        return self.tensors[-1]

    def tensor_list(self, name: str, items: list[ctypes.c_void_p]) -> ctypes.c_void_p:
        """An ``aclTensorList`` of ``items`` (aclCreateTensorList, libnnopbase): how aclnn takes a dynamic tensor."""
        create = getattr(self.nn, "aclCreateTensorList", None)
        if create is None:
            raise Failure(f"{name} is a dynamic (list) tensor, and {self.nn._name} has no aclCreateTensorList")
        create.restype = ctypes.c_void_p
        create.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64]
        arr = (ctypes.c_void_p * max(len(items), 1))(*[t.value for t in items])
        made = create(arr, len(items))
        if not made:
            raise Failure(f"aclCreateTensorList({name}, {len(items)} tensors) failed")
        for t in items:  # the list owns them now
            self.tensors.remove(t)
        self.lists.append(ctypes.c_void_p(made))
        return self.lists[-1]

    def release(self) -> None:
        destroy = getattr(self.nn, "aclDestroyTensorList", None)
        if destroy is not None:
            destroy.argtypes = [ctypes.c_void_p]
            for lst in self.lists:
                destroy(lst)
        for t in self.tensors:
            self.nn.aclDestroyTensor(t)
        self.lists, self.tensors = [], []


def communicator(acl: Acl, h: dict[str, Any]) -> tuple[ctypes.c_void_p, str]:
    """This rank's HCCL communicator and its name: rank 0 gets the root info (HcclGetRootInfo) and writes it to the
    run's root-info file; the others wait for that file; each then HcclCommInitRootInfo(R, &root, rank, &comm)."""
    assert acl.hccl is not None
    root = (ctypes.c_char * HCCL_ROOT_INFO_BYTES)()
    path = Path(h["root_info"])
    rank, world = int(h["rank"]), int(h["world"])
    if rank == 0:
        rc = acl.hccl.HcclGetRootInfo(root)
        if rc != 0:
            raise Failure(f"HcclGetRootInfo returned {rc}")
        part = path.with_name(path.name + ".part")
        part.write_bytes(bytes(root))
        os.replace(part, path)  # the other ranks see the whole root info or none
    else:
        while not path.is_file():  # rank 0 writes it; the runner's timeout ends a wait that never ends
            time.sleep(0.005)
        data = path.read_bytes()[:HCCL_ROOT_INFO_BYTES]
        ctypes.memmove(root, data, len(data))
    comm = ctypes.c_void_p()
    acl.hccl.HcclCommInitRootInfo.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32,
                                              ctypes.POINTER(ctypes.c_void_p)]
    rc = acl.hccl.HcclCommInitRootInfo(world, ctypes.addressof(root), rank, ctypes.byref(comm))
    if rc != 0:
        raise Failure(f"HcclCommInitRootInfo({world} ranks, rank {rank}) returned {rc}")
    name = ctypes.create_string_buffer(HCCL_COMM_NAME_BYTES)
    acl.hccl.HcclGetCommName.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    rc = acl.hccl.HcclGetCommName(comm, name)
    if rc != 0:
        raise Failure(f"HcclGetCommName returned {rc}")
    return comm, name.value.decode(errors="replace")


def _attr(acl: Acl, a: dict[str, Any]) -> Any:
    v, t = a["value"], a["type"]
    if t == "float":
        return ctypes.c_double(float(v))
    if t == "int":
        return ctypes.c_int64(int(v))
    if t == "bool":
        return ctypes.c_bool(bool(v))
    if t == "string":
        return ctypes.c_char_p(str(v).encode())
    lists = {"list_int": ("aclCreateIntArray", ctypes.c_int64), "list_float": ("aclCreateFloatArray", ctypes.c_float),
             "list_bool": ("aclCreateBoolArray", ctypes.c_bool)}
    if t in lists:
        name, ctype = lists[t]
        arr = (ctype * max(len(v), 1))(*v)
        return ctypes.c_void_p(getattr(acl.nn, name)(arr, len(v)))
    raise Failure(f"attr '{a['name']}' of type {t} cannot be passed to aclnn by opkit")


def run(req: dict[str, Any]) -> dict[str, Any]:
    acl = Acl(req)
    op = req["op_type"]
    phase1 = getattr(acl.op, f"aclnn{op}GetWorkspaceSize", None)
    phase2 = getattr(acl.op, f"aclnn{op}", None)
    if phase1 is None or phase2 is None:
        raise Failure(f"{req['libcust_opapi']} has no aclnn{op}GetWorkspaceSize / aclnn{op}")
    acl.check(acl.rt.aclInit(None), "aclInit")
    acl.check(acl.rt.aclrtSetDevice(int(req["device"])), f"aclrtSetDevice({req['device']})")
    stream = ctypes.c_void_p()
    acl.check(acl.rt.aclrtCreateStream(ctypes.byref(stream)), "aclrtCreateStream")
    comm = None
    attrs = req["attrs"]
    if req.get("hccl"):  # a rank of a multi-rank case: its communicator's name is the op's group attr
        comm, name = communicator(acl, req["hccl"])
        attrs = [{**a, "value": name} if a["name"] in req["hccl"]["group_attrs"] else a for a in attrs]
    args: list[Any] = []
    outs: list[tuple[str, ctypes.c_void_p, int]] = []  # (file, device buffer, bytes) of every output tensor
    for t in req["inputs"]:
        if t["file"] is None:
            args.append(ctypes.c_void_p(None))
        elif t.get("list"):  # a dynamic input: one tensor per file, passed as one aclTensorList
            items = [acl.tensor(shape, t["acl_dtype"], t["acl_format"], acl.device(Path(f).read_bytes()))
                     for shape, f in zip(t["shape"], t["file"], strict=True)]
            args.append(acl.tensor_list(t["name"], items))
        else:
            ptr = acl.device(Path(t["file"]).read_bytes())
            args.append(acl.tensor(t["shape"], t["acl_dtype"], t["acl_format"], ptr))
    args += [_attr(acl, a) for a in attrs]
    for t in req["outputs"]:
        if t.get("list"):
            items = []
            for shape, f, n in zip(t["shape"], t["file"], t["bytes"], strict=True):
                ptr = acl.device(bytes(n))
                outs.append((f, ptr, n))
                items.append(acl.tensor(shape, t["acl_dtype"], t["acl_format"], ptr))
            args.append(acl.tensor_list(t["name"], items))
            continue
        ptr = acl.device(bytes(t["bytes"]))
        outs.append((t["file"], ptr, t["bytes"]))
        args.append(acl.tensor(t["shape"], t["acl_dtype"], t["acl_format"], ptr))
    size = ctypes.c_uint64(0)
    executor = ctypes.c_void_p()
    acl.check(phase1(*args, ctypes.byref(size), ctypes.byref(executor)), f"aclnn{op}GetWorkspaceSize")
    workspace = ctypes.c_void_p(None)
    if size.value:
        acl.check(acl.rt.aclrtMalloc(ctypes.byref(workspace), size.value, MALLOC_HUGE_FIRST), "aclrtMalloc")
    acl.check(phase2(workspace, ctypes.c_uint64(size.value), executor, stream), f"aclnn{op}")
    acl.check(acl.rt.aclrtSynchronizeStream(stream), "aclrtSynchronizeStream")
    for file, ptr, n in outs:
        buf = ctypes.create_string_buffer(max(n, 1))
        if n:
            acl.check(acl.rt.aclrtMemcpy(buf, n, ptr, n, MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
        Path(file).write_bytes(buf.raw[:n])
    acl.release()
    if comm is not None:
        assert acl.hccl is not None
        acl.hccl.HcclCommDestroy.argtypes = [ctypes.c_void_p]
        rc = acl.hccl.HcclCommDestroy(comm)
        if rc != 0:
            raise Failure(f"HcclCommDestroy returned {rc}")
    acl.rt.aclrtDestroyStream(stream)
    acl.rt.aclrtResetDevice(int(req["device"]))
    acl.rt.aclFinalize()
    return {"workspace_bytes": size.value}


def main(argv: list[str]) -> int:
    path = Path(argv[1])
    try:
        result = run(json.loads(path.read_text(encoding="utf-8")))
    except Failure as exc:
        sys.stderr.write(f"{ERROR}{exc}\n")
        return 1
    path.with_name(path.name + ".result.json").write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
