"""The exception tree: every core error code maps to exactly one class of the right family."""

from __future__ import annotations

from pathlib import Path

import pytest

import x12kit
from x12kit import _x12kit


def test_error_codes_come_from_the_core() -> None:
    assert len(x12kit.ERROR_CODES) == len(set(x12kit.ERROR_CODES)) >= 30
    assert set(x12kit.ERROR_KINDS) == set(x12kit.ERROR_CODES)
    assert set(x12kit.ERROR_KINDS.values()) == {"invalid_input", "rejected", "io", "internal"}


@pytest.mark.parametrize("code", list(_x12kit.ERROR_CODES))
def test_every_code_has_one_class_of_its_kind(code: str) -> None:
    cls = x12kit.CLASS_BY_CODE.get(code)
    assert cls is not None, f"{code} has no exception class: add it to x12kit/_errors.py"
    assert issubclass(cls, x12kit.X12kitError)
    kind = x12kit.ERROR_KINDS[code]
    if kind == "invalid_input":
        assert issubclass(cls, x12kit.InvalidArgument) and issubclass(cls, ValueError)
    else:
        assert not issubclass(cls, x12kit.InvalidArgument)
    if kind == "io":
        assert issubclass(cls, OSError)
    if kind == "internal":
        assert cls is x12kit.InternalError
    # The factory the native module calls picks exactly this class.
    e = x12kit._errors._from_core(
        code=code, kind=kind, message="m", pointer="/p", details=[], wrong_type=False
    )
    assert type(e) is cls and e.code == code and e.kind == kind and e.pointer == "/p"


def test_no_stale_codes_in_the_table() -> None:
    assert set(x12kit.CLASS_BY_CODE) == set(x12kit.ERROR_CODES)


def test_wrong_python_type_is_type_error_and_value_error() -> None:
    with pytest.raises(x12kit.InvalidType) as info:
        x12kit.parse(12345)  # type: ignore[arg-type]
    e = info.value
    assert isinstance(e, TypeError) and isinstance(e, ValueError) and isinstance(e, x12kit.X12kitError)
    assert e.code == "INVALID_ARGUMENT" and e.kind == "invalid_input"
    assert "int" in e.message


def test_bad_option_value_is_invalid_options_with_pointer() -> None:
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.validate(b"", structure="yes")  # type: ignore[arg-type]
    assert info.value.code == "INVALID_OPTIONS"
    with pytest.raises(x12kit.InvalidArgument) as info:
        x12kit.acknowledge(b"", kind="998", now=0)  # type: ignore[arg-type]
    assert info.value.code == "INVALID_OPTIONS" and "998" in info.value.message


def test_a_rust_panic_becomes_internal_error() -> None:
    with pytest.raises(x12kit.InternalError) as info:
        _x12kit._panic_for_tests()
    assert info.value.code == "INTERNAL" and info.value.kind == "internal"
    assert "deliberate panic" in info.value.message


def test_the_panic_hook_for_tests_is_not_public() -> None:
    # Only an attribute of the private native module: not in its __all__, not in the stubs,
    # not in the package's namespace.
    assert "_panic_for_tests" not in _x12kit.__all__
    assert not hasattr(x12kit, "_panic_for_tests")
    stubs = Path(x12kit.__file__).parent.glob("*.pyi")
    assert all("_panic_for_tests" not in p.read_text() for p in stubs)


def test_error_str_and_dict() -> None:
    with pytest.raises(x12kit.RenderError) as info:
        x12kit.document_schema("123")
    e = info.value
    assert e.code == "UNKNOWN_DOCUMENT_TYPE"
    assert str(e).startswith("UNKNOWN_DOCUMENT_TYPE: ")
    assert e.to_dict()["code"] == "UNKNOWN_DOCUMENT_TYPE"
    assert e.problems == e.details == []
