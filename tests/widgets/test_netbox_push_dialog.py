"""File ▸ Export ▸ Push to NetBox…: Compare (the dry run) and Push of the window's current analysis on a worker, the
report in the dialog, the address remembered and the token not (the push itself is tested against a real NetBox
in tests/netbox)."""
from __future__ import annotations

import threading


from exporters.netbox_push import NetBoxPushError, PushReport, Tally
from widgets.quote.netbox_push_dialog import URL_KEY, NetBoxPushDialog



class FakePush:
    """Stands in for push_netbox: records its call and the thread it ran on, says a step, returns a report."""

    def __init__(self, fail: Exception | None = None):
        self.calls, self.fail = [], fail

    def __call__(self, analysis, url, token, *, dry_run, say):
        self.calls.append((analysis, url, token, dry_run, threading.current_thread().name))
        say("Racks: 23 to create, 0 to update")
        if self.fail:
            raise self.fail
        return PushReport(url=url, dry_run=dry_run, netbox_version="4.7.3",
                          kinds={"Racks": Tally(created=23), "Devices": Tally(unchanged=123)})


def open_dialog(window, qtbot, push, url: str, token: str) -> NetBoxPushDialog:
    dialog = NetBoxPushDialog(window, push=push)
    qtbot.addWidget(dialog)
    dialog.url.setText(url)
    dialog.token.setText(token)
    return dialog


def test_compare_is_a_dry_run_of_the_current_analysis_on_a_worker(sample_window, qtbot):
    window = sample_window
    push = FakePush()
    dialog = open_dialog(window, qtbot, push, "http://netbox.example:8000", "nbt_abc.def")
    with qtbot.waitSignal(dialog.pushed, timeout=10000) as got:
        dialog.compare_button.click()
        assert dialog.running  # the buttons wait while NetBox answers
    analysis, url, token, dry_run, thread = push.calls[0]
    assert analysis is window.analysis and (url, token, dry_run) == ("http://netbox.example:8000", "nbt_abc.def", True)
    assert thread.startswith("podplanner-netbox")
    text = dialog.output.toPlainText()
    assert "Racks: 23 to create, 0 to update" in text
    assert "NetBox 4.7.3 at http://netbox.example:8000: would change 23 objects (nothing was written)" in text
    assert got.args[0].dry_run and not dialog.running
    # the address is remembered, the token never
    assert window.settings.value(URL_KEY) == "http://netbox.example:8000"
    assert "nbt_abc" not in " ".join(str(window.settings.value(k)) for k in window.settings.allKeys())


def test_push_writes_and_a_refusal_is_said_in_words(sample_window, qtbot):
    push = FakePush(fail=NetBoxPushError("NetBox refused Racks: name: rack with this name already exists."))
    dialog = open_dialog(sample_window, qtbot, push, "http://nb", "t")
    with qtbot.waitSignal(dialog.pushed, timeout=10000) as got:
        dialog.push_button.click()
    assert push.calls[0][3] is False and got.args[0] is None
    assert "Not done: NetBox refused Racks: name: rack with this name already exists." in dialog.output.toPlainText()
    assert dialog.push_button.isEnabled()


def test_nothing_starts_without_an_address_and_token_or_while_an_edit_is_analysed(sample_window, qtbot, monkeypatch):
    window = sample_window
    push = FakePush()
    dialog = open_dialog(window, qtbot, push, "", "t")
    dialog.compare_button.click()
    assert "Give NetBox's address and an API token." in dialog.output.toPlainText()
    dialog.url.setText("http://nb")
    monkeypatch.setattr(type(window.exports), "current", lambda self: False)
    dialog.compare_button.click()
    assert "still being analysed" in dialog.output.toPlainText() and not push.calls and not dialog.running


def test_the_menu_opens_one_dialog_with_the_token_from_the_environment(sample_window, monkeypatch):
    window = sample_window
    monkeypatch.setenv("NETBOX_TOKEN", "nbt_from.env")
    window.exports.push_action.trigger()
    dialog = window.exports.push_dialog
    assert dialog.isVisible() and dialog.token.text() == "nbt_from.env"
    assert window.exports.push_to_netbox() is dialog
    dialog.close()
