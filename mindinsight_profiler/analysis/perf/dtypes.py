"""Element types as profilers print them, turned into one vocabulary with sizes in bytes.

Kineto writes a tensor argument's type as c10's name for it ("float", "c10::BFloat16",
"long int"; PyTorch 2.x also "long", "int"), torch_npu the same names separated by `;`,
Ascend kernels CANN's ("FLOAT16", "BF16", "DT_FLOAT"). Arguments that are not tensors have
type words instead ("Scalar", "ScalarList", "TensorList", "GenericList", "Int", "Bool", "")
and no element type: `element_type` returns None for them, which is how a call's tensor
arguments are told from its scalars. Sizes are what one element occupies in memory; the
canonical names are the keys the device table uses for peaks where one exists
(`peak_key`: fp8 variants share `fp8`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    """A canonical element type ("bf16") and its size in bytes."""

    name: str
    size: int


_SIZES = {
    "fp64": 8,
    "fp32": 4,
    "fp16": 2,
    "bf16": 2,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
    "complex32": 4,
    "complex64": 8,
    "complex128": 16,
}

#: Printed names (lower case) -> canonical name.
_NAMES = {
    # c10 (Kineto "Input type", torch_npu)
    "double": "fp64",
    "float": "fp32",
    "c10::half": "fp16",
    "c10::bfloat16": "bf16",
    "c10::float8_e4m3fn": "fp8_e4m3",
    "c10::float8_e4m3fnuz": "fp8_e4m3",
    "c10::float8_e5m2": "fp8_e5m2",
    "c10::float8_e5m2fnuz": "fp8_e5m2",
    "long int": "int64",
    "long": "int64",
    "int": "int32",
    "short int": "int16",
    "short": "int16",
    "signed char": "int8",
    "unsigned char": "uint8",
    "bool": "bool",
    "c10::complex<c10::half>": "complex32",
    "c10::complex<float>": "complex64",
    "c10::complex<double>": "complex128",
    # CANN (Ascend kernel details), with or without the DT_ prefix
    "float16": "fp16",
    "bf16": "bf16",
    "bfloat16": "bf16",
    "float32": "fp32",
    "int64": "int64",
    "int32": "int32",
    "int16": "int16",
    "int8": "int8",
    "uint8": "uint8",
    "float8_e4m3fn": "fp8_e4m3",
    "float8_e5m2": "fp8_e5m2",
    "hifloat8": "fp8_e4m3",  # Ascend's 8-bit float: one byte, counted with the fp8 peaks
    "complex64": "complex64",
    "complex128": "complex128",
}

#: c10::ScalarType codes, as `Concrete Inputs` print a dtype argument (`out_dtype`, `dtype`).
SCALAR_TYPE_CODES = {
    0: "uint8",
    1: "int8",
    2: "int16",
    3: "int32",
    4: "int64",
    5: "fp16",
    6: "fp32",
    7: "fp64",
    8: "complex32",
    9: "complex64",
    10: "complex128",
    11: "bool",
    15: "bf16",
    23: "fp8_e5m2",
    24: "fp8_e4m3",
    25: "fp8_e5m2",
    26: "fp8_e4m3",
}


def canonical(name: str) -> DType:
    """The DType of a canonical name ("bf16")."""
    return DType(name, _SIZES[name])


def element_type(text: str) -> DType | None:
    """The element type a profiler printed, or None for a non-tensor argument."""
    if text.strip() in NON_TENSOR_WORDS:  # "Int" is a scalar, "int" an int32 tensor
        return None
    key = text.strip().lower()
    if key.startswith("dt_"):
        key = key[3:]
    name = _NAMES.get(key)
    return DType(name, _SIZES[name]) if name else None


def from_scalar_type(code: int) -> DType | None:
    """The DType of a c10::ScalarType code, None for codes without a size here."""
    name = SCALAR_TYPE_CODES.get(code)
    return DType(name, _SIZES[name]) if name else None


def peak_key(dtype: str) -> str:
    """The device table's `dense_tflops` key for a canonical dtype (fp8 variants: "fp8")."""
    return "fp8" if dtype.startswith("fp8") else dtype


#: Type words of arguments that are not tensors, exactly as Kineto prints them: 2021
#: traces name scalars by their C++ kind ("Int", "Bool", "Double"), which only their case
#: tells from the element types "int" and "bool".
NON_TENSOR_WORDS = frozenset(
    {"", "None", "Scalar", "ScalarList", "GenericList", "TensorList", "Int", "Bool", "Double",
     "String", "Device", "Layout", "ScalarType", "MemoryFormat"}
)  # fmt: skip
