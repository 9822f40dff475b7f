"""
model-loading rules (roles, dictionaries, model sets, sha256)
"""

from __future__ import annotations

import collections.abc
import typing

import typing_extensions

import edgeocr._core

__all__: list[str] = [
    "Bundle",
    "MemberView",
    "cache_folder",
    "cache_root",
    "charset_for",
    "check_settings_json",
    "default_settings_json",
    "graph_cache_dir",
    "model_set_settings",
    "paddle_model_config",
    "parse_keys",
    "read_keys_file",
    "role_of",
    "sha256_hex",
    "split_lines_like_python",
]

class MemberView:
    def __len__(self) -> int: ...

class Bundle:
    @staticmethod
    def from_buffer(
        data: typing.Any, name: str = "<bytes>", verify_checksums: bool = True
    ) -> Bundle: ...
    @staticmethod
    def open(path: typing.Any, verify_checksums: bool = True) -> Bundle: ...
    def member(self, arg0: str) -> typing.Any: ...
    @property
    def charset(self) -> list[str]: ...
    @property
    def config_json(self) -> str: ...
    @property
    def file_size(self) -> int: ...
    @property
    def manifest_json(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def recheck_charset(self) -> list[str]: ...
    @property
    def roles(self) -> list[str]: ...

def cache_folder(name: str) -> str:
    """
    The cache folder `name` under cache_root(), created (0700) and checked: a folder owned by this user and not writable by group or others; '' when disk caches are off or the folder is refused (named once in a warning on stderr).
    """

def cache_root() -> str:
    """
    The root of edgeocr's disk caches: $EDGEOCR_CACHE_DIR, else ~/.cache/edgeocr ('' when EDGEOCR_CACHE_DIR=off, or without HOME and EDGEOCR_CACHE_DIR). Not checked or created.
    """

def charset_for(
    rec: edgeocr._core.Model,
    chars: collections.abc.Sequence[str] | None = None,
    source: str = "the keys given",
) -> list[str]: ...
def check_settings_json(settings_json: str, where: str = "settings") -> str:
    """
    edgeocr's defaults with these settings applied (checked), as JSON.
    """

def default_settings_json() -> str: ...
def graph_cache_dir() -> str:
    """
    The folder of ONNX Runtime's optimised graphs, created and checked ('' when EDGEOCR_GRAPH_CACHE=0, disk caches are off or the folder is refused).
    """

def model_set_settings(
    det: typing.Any = None,
    cls: typing.Any = None,
    rec: typing.Any = None,
    recheck: typing.Any = None,
) -> tuple[str, str]:
    """
    (model set name or '', its settings as JSON) for these models (paths or buffers).
    """

def paddle_model_config(
    yml_json: str, role: str, where: str = "inference.yml"
) -> tuple[str, list[str], list[str]]:
    """
    (settings as JSON, characters, notes) from a Paddle model's inference.yml (as JSON).
    """

def parse_keys(text: bytes, source: str = "keys") -> list[str]: ...
def read_keys_file(path: str) -> list[str]: ...
def role_of(arg0: edgeocr._core.Model) -> str: ...
def sha256_hex(arg0: typing_extensions.Buffer) -> str: ...
def split_lines_like_python(arg0: bytes) -> list[str]: ...
