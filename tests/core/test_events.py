"""events.py: the bus every front end subscribes to. Subscribers are called in order,
one event at a time; one that raises is reported once and never stops the others."""

from miniagent.core.events import EventBus


def test_subscribers_get_every_event_in_subscription_order():
    bus, seen = EventBus(), []
    bus.subscribe(lambda event: seen.append(("first", event["type"])))
    bus.subscribe(lambda event: seen.append(("second", event["type"])))
    bus.emit({"type": "agent_start"})
    bus.emit({"type": "agent_end"})
    assert seen == [("first", "agent_start"), ("second", "agent_start"),
                    ("first", "agent_end"), ("second", "agent_end")]


def test_unsubscribe_stops_delivery():
    bus = EventBus()
    seen = []
    unsubscribe = bus.subscribe(seen.append)
    bus.emit({"type": "a"})
    unsubscribe()
    bus.emit({"type": "b"})
    unsubscribe()  # a second call is harmless
    assert seen == [{"type": "a"}]


def test_a_raising_subscriber_is_reported_once_and_the_others_still_hear(capsys):
    bus, seen = EventBus(), []

    def broken(event):
        raise RuntimeError("display bug")

    bus.subscribe(broken)
    bus.subscribe(seen.append)
    for kind in ("agent_start", "turn_start", "agent_end"):
        bus.emit({"type": kind})
    assert [event["type"] for event in seen] == ["agent_start", "turn_start", "agent_end"]
    err = capsys.readouterr().err
    assert err.count("miniagent: event subscriber") == 1
    assert "broken failed on 'agent_start'" in err and "RuntimeError: display bug" in err


def test_a_subscriber_may_emit_and_unsubscribe_while_it_is_called():
    bus, seen = EventBus(), []

    def once(event):  # re-entrant: the lock is held while it runs
        unsubscribe()
        bus.emit({"type": "echo of " + event["type"]})

    unsubscribe = bus.subscribe(once)
    bus.subscribe(lambda event: seen.append(event["type"]))
    bus.emit({"type": "a"})
    bus.emit({"type": "b"})
    assert seen == ["echo of a", "a", "b"]

