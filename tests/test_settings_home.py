"""The settings dataclasses are the one home of a setting's default and help:
the command line's options and a study's `load:` fields are made from them,
so they cannot drift apart (loadtest/settings.py, lab/settings.py)."""
from dataclasses import fields

import pytest
import typer

import brewput.cli  # noqa: F401  (registers the commands)
from brewput.cli.common import app
from brewput.experiment.study import LoadOptions
from brewput.lab.settings import CoffeeSettings
from brewput.loadtest.settings import LoadSettings
from brewput.setting import setting_of

BREWPUT = typer.main.get_command(app)


def command(*words):
    found = BREWPUT
    for word in words:
        found = found.commands[word]
    return found


def option(cmd, flag):
    return next(p for p in cmd.params if flag in p.opts)


def declared(settings):
    return [f for f in fields(settings) if "setting" in f.metadata]


@pytest.mark.parametrize("field", declared(LoadSettings), ids=lambda f: f.name)
def test_every_load_setting_is_an_option_of_brewput_load_as_declared(field):
    made = option(command("load"), "--" + field.name.replace("_", "-"))
    said = setting_of(LoadSettings, field.name)
    assert made.default == said.text
    assert made.help.startswith(said.help) and made.metavar == said.metavar


@pytest.mark.parametrize("field", declared(LoadSettings), ids=lambda f: f.name)
def test_a_studys_load_field_defaults_to_the_setting(field):
    """Leaving a field out of a study is writing the setting's default there."""
    target = {"target": "http://127.0.0.1:1/"}
    left_out = LoadOptions.check(target).as_dict()[field.name]
    assert left_out == LoadOptions.check({**target, field.name: field.default}).as_dict()[field.name]
    assert field.default is None or left_out is not None


def test_the_command_lines_typed_defaults_are_the_settings_values():
    """`--connections 16` is the study's `connections: 16`; a time keeps its unit."""
    assert (LoadSettings.connections, setting_of(LoadSettings, "connections").text) == (16, "16")
    assert setting_of(LoadSettings, "duration").text is None  # until --requests, when given instead
    assert option(command("load"), "--duration").help.endswith("[default: 10s, or until --requests]")


COFFEE_FLAGS = {"grind_ms": "--grind", "press_ms": "--press", "steam_ms": "--steam", "latte_ms": "--latte",
                "jitter_ms": "--jitter", "duration_ms": "--dur", "warmup_ms": "--warmup",
                "repetitions": "--repetitions", "rate_per_s": "--rate", "arrivals": "--arrivals", "queue": "--queue",
                "stall_every": "--stall-every", "stall_ms": "--stall", "nice": "--nice", "runtime": "--runtime"}


def test_every_declared_coffee_setting_is_an_option_of_lab_coffee():
    assert {f.name for f in declared(CoffeeSettings)} == set(COFFEE_FLAGS)


@pytest.mark.parametrize("name, flag", COFFEE_FLAGS.items())
def test_a_coffee_options_default_is_the_settings_default_as_typed(name, flag):
    """What the option parses from its default text is the dataclass's default."""
    from brewput.lab import options as opt

    text = option(command("lab", "coffee"), flag).default
    default = getattr(CoffeeSettings, name)
    if name.endswith("_ms"):
        assert opt.time_ms(name, text) == default
    elif text is None:
        assert default is None or name == "runtime"
    elif isinstance(default, int):
        assert int(text) == default
    else:
        assert text == default


def test_lab_pool_and_talk_share_the_coffee_defaults():
    assert option(command("lab", "pool"), "--repetitions").default == str(CoffeeSettings.repetitions)
    assert option(command("lab", "talk"), "--dur").default == setting_of(CoffeeSettings, "duration_ms").text
