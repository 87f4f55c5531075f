"""The client's settings as the server reads them (graphlint.server.settings), in process:
ruff's names, nested as editors send them; a value of the wrong type is left out, said."""

from __future__ import annotations

from graphlint.server.settings import Settings


def read(raw) -> tuple[Settings, list[str]]:
    said: list[str] = []
    return Settings().merged(raw, said.append), said


def test_the_settings_editors_send_nested():
    settings, said = read(
        {
            "configuration": "~/team.toml",
            "configurationPreference": "filesystemFirst",
            "lint": {"enable": False, "select": ["gl1"], "extendSelect": ["GL3"], "ignore": ["GL103 "], "run": "onSave", "debounce": 250},
            "fixAll": False,
            "codeAction": {"fixViolation": {"enable": False}, "disableRuleComment": {"enable": False}},
            "showSyntaxErrors": False,
        }
    )
    assert said == []
    assert settings == Settings(
        configuration="~/team.toml",
        configuration_preference="filesystemFirst",
        enable=False,
        select=("GL1",),
        extend_select=("GL3",),
        ignore=("GL103",),
        run="onSave",
        debounce=0.25,
        fix_all=False,
        fix_violation=False,
        disable_rule_comment=False,
        show_syntax_errors=False,
    )


def test_a_value_of_the_wrong_type_is_left_out_and_said():
    settings, said = read({"lint": {"select": "GL1", "enable": "yes", "debounce": True}, "configurationPreference": "mine"})
    assert settings == Settings()
    assert said == [
        "graphlint: setting configurationPreference = 'mine' is not valid (left out)",
        "graphlint: setting lint.enable = 'yes' is not valid (left out)",
        "graphlint: setting lint.select = 'GL1' is not valid (left out)",
        "graphlint: setting lint.debounce = True is not valid (left out)",
    ]


def test_an_empty_select_is_not_a_selection_of_nothing():
    """Editors fill in ``[]`` for a list setting left alone."""
    settings, _ = read({"lint": {"select": []}})
    assert settings.select is None


def test_no_settings_are_the_defaults():
    assert read(None) == (Settings(), [])
    assert read({"unknown": 1}) == (Settings(), [])
