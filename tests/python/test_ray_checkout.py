"""Ray from a checkout: Ray puts the driver's folder on its workers' sys.path, so run from a
checkout of edgeocr after a non-editable install they would import the checkout's edgeocr/ (no
compiled core). edgeocr's ray.init then gives the job an empty working_dir, which keeps that
folder off their path. (.ci/run runs the README's Ray command from the checkout end to end.)"""

import os
import sys

import pytest

import edgeocr
import edgeocr.ray.cluster as er


class RecordingRay:
    """What init_local_ray passes to ray.init, and whether its working_dir exists then."""

    def init(self, **kw):
        self.kw = kw
        wd = (kw.get("runtime_env") or {}).get("working_dir")
        self.working_dir_listing = os.listdir(wd) if wd and os.path.isdir(wd) else None
        return "ctx"


@pytest.fixture
def in_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "bin" / "edgeocr")])
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_folder_with_another_edgeocr_gets_an_empty_working_dir(in_folder):
    (in_folder / "edgeocr").mkdir()
    (in_folder / "edgeocr" / "__init__.py").write_text("")
    assert er.driver_folder_shadows_edgeocr()
    ray = RecordingRay()
    assert er.init_local_ray(ray, num_cpus=2) == "ctx"
    assert ray.working_dir_listing == []  # empty while Ray uploads it, removed afterwards
    assert not os.path.exists(ray.kw["runtime_env"]["working_dir"])
    assert ray.kw["num_cpus"] == 2 and ray.kw["include_dashboard"] is False


def test_any_other_folder_is_left_as_ray_does_it(in_folder):
    (in_folder / "edgeocr").mkdir()  # a folder of that name that is no package
    assert not er.driver_folder_shadows_edgeocr()
    ray = RecordingRay()
    er.init_local_ray(ray)
    assert "runtime_env" not in ray.kw


def test_the_imported_edgeocr_itself_is_no_shadow(monkeypatch):
    # An editable install or a run from site-packages: the folder holds this very package.
    monkeypatch.chdir(os.path.dirname(os.path.dirname(edgeocr.__file__)))
    assert os.path.isfile(os.path.join("edgeocr", "__init__.py"))  # the folder holds it
    assert not er.driver_folder_shadows_edgeocr()


def test_a_callers_working_dir_is_kept(in_folder):
    (in_folder / "edgeocr").mkdir()
    (in_folder / "edgeocr" / "__init__.py").write_text("")
    ray = RecordingRay()
    er.init_local_ray(ray, runtime_env={"working_dir": "s3://bucket/job.zip", "pip": ["x"]})
    assert ray.kw["runtime_env"] == {"working_dir": "s3://bucket/job.zip", "pip": ["x"]}
