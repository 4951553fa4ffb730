"""``birkin_mnemosyne`` re-exports its public names, sorted and complete."""

from __future__ import annotations

import birkin_mnemosyne
from birkin_mnemosyne import errors


def test_all_is_sorted_and_resolves():
    names = birkin_mnemosyne.__all__
    assert names == sorted(names)
    for name in names:
        assert hasattr(birkin_mnemosyne, name), name


def test_every_error_class_is_exported():
    classes = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.MnemosyneError)
    }
    assert classes <= set(birkin_mnemosyne.__all__)
    assert all(issubclass(getattr(errors, c), errors.MnemosyneError) for c in classes)
