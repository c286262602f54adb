import pytest

from opkit import soc


def test_keys_and_chips():
    assert soc.opdef_keys() == ["ascend910b", "ascend910_93", "ascend310p"]
    names = soc.chips()
    for n in ["ascend910b1", "ascend910b2", "ascend910b3", "ascend910b4", "ascend310p3"]:
        assert n in names
    assert any(n.startswith("ascend910_93") for n in names)


def test_defaults():
    assert soc.default_chip("ascend910b") == "ascend910b2"
    assert soc.default_chip("ascend310p") == "ascend310p3"
    assert soc.chip(soc.default_chip("ascend910_93"))["opdef_key"] == "ascend910_93"
    c = soc.chip("ascend910b")
    assert c["name"] == "ascend910b2"
    assert (c["aic_cores"], c["aiv_cores"]) == (24, 48)
    assert c["is_default"]


def test_910b_memory():
    c = soc.chip("ascend910b4")
    assert c["arch"] == 2201
    assert c["ub_size"] == 192 * 1024
    assert c["ub_reported"] == 192 * 1024 - 256
    assert c["ub_reserved"] == 8 * 1024
    assert c["sys_workspace"] == 16 * 1024 * 1024
    assert (c["l0a_size"], c["l0b_size"], c["l0c_size"], c["l1_size"]) == (65536, 65536, 131072, 524288)
    assert c["soc_version"] == "ASCEND910B"


def test_310p():
    c = soc.chip("ascend310p")
    assert c["arch"] == 2002
    assert c["sys_workspace"] == 2 * 1024 * 1024
    assert c["aic_cores"] == c["aiv_cores"]
    assert c["split_cores"] is False


def test_every_number_has_a_source():
    for name in soc.chips():
        c = soc.chip(name)
        for key, value in c.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key != "arch":
                assert key in c["sources"], (name, key)
                assert c["sources"][key]["source"], (name, key)


def test_unknown_name_lists_valid_names():
    with pytest.raises(KeyError) as e:
        soc.chip("ascend999")
    assert "ascend910b2" in str(e.value) and "ascend310p" in str(e.value)
    with pytest.raises(KeyError):
        soc.default_chip("ascend910b2")


def test_copy_is_fresh():
    c = soc.chip("ascend910b2")
    c["ub_size"] = 1
    assert soc.chip("ascend910b2")["ub_size"] == 196608
