"""Device names as traces print them, reduced to what identifies the device.

The same accelerator is "NVIDIA A100-SXM4-80GB" in a Kineto trace, "A100 SXM4 80GB" in our
table and "a100-sxm4-80gb" on a command line; Ascend writes "Ascend910B3" in one word. Names
are compared by their words without case, punctuation or vendor words (`name_key`), and a
name that is no known alias is split into model words, a memory size and a form factor
(`name_parts`) so that a family and the trace's properties can still decide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Words that name a vendor or a brand, never a model; each says which vendor.
VENDOR_WORDS = {
    "nvidia": "nvidia", "tesla": "nvidia", "amd": "amd", "instinct": "amd", "radeon": "amd",
    "graphics": "amd", "huawei": "huawei", "ascend": "huawei",
}  # fmt: skip
#: Form-factor words and the table's `variant` they mean (other words, e.g. "sxm3", are not
#: taken as a form: they stay model words, so they cannot pick a neighbour's figures).
FORM_WORDS = {
    "sxm": "SXM", "sxm2": "SXM", "sxm4": "SXM", "sxm5": "SXM", "pcie": "PCIe", "nvl": "NVL",
    "oam": "OAM",
}  # fmt: skip
#: Memory technology words, which say nothing about which device it is.
MEMORY_WORDS = frozenset({"hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr6"})
_WORD = re.compile(r"[a-z0-9]+")
_MEMORY = re.compile(r"(\d+)gb")


def _words(name: str) -> tuple[list[str], str | None]:
    """(the name's words without vendor words, the vendor those words name)."""
    out: list[str] = []
    vendor = None
    for w in _WORD.findall(name.lower()):
        if w.startswith("ascend") and w[6:7].isdigit():  # "Ascend910B3"
            vendor, w = "huawei", w[6:]
        if w in VENDOR_WORDS:
            vendor = VENDOR_WORDS[w]
            continue
        out.append(w)
    return out, vendor


def name_key(name: str) -> str:
    """The lookup key of a device name: its non-vendor words, lower case, joined."""
    return "".join(_words(name)[0])


@dataclass(frozen=True)
class NameParts:
    """What a device name says: model words, memory size, form factor and vendor."""

    models: tuple[str, ...]
    memory_gb: int | None
    form: str | None
    vendor: str | None


def name_parts(name: str) -> NameParts:
    """Split a name into model words, memory ("80GB"), form ("SXM4", "PCIe") and vendor."""
    words, vendor = _words(name)
    models: list[str] = []
    memory = form = None
    for w in words:
        m = _MEMORY.fullmatch(w)
        if m:
            memory = int(m.group(1))
        elif w in FORM_WORDS:
            form = FORM_WORDS[w]
        elif w not in MEMORY_WORDS:
            models.append(w)
    return NameParts(tuple(models), memory, form, vendor)
