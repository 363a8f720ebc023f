"""Session ids: UUIDv7 in time order, shown by their shortest unique prefix."""

import uuid

from miniagent.session.ids import SHORTEST, new_session_id, short_ids


def test_new_ids_are_uuid7_and_sort_in_the_order_they_were_made():
    ids = [new_session_id() for _ in range(50)]
    assert all(uuid.UUID(value).version == 7 for value in ids)
    assert all(uuid.UUID(value).variant == uuid.RFC_4122 for value in ids)
    # the first 12 hex digits are milliseconds: never decreasing
    stamps = [value.replace("-", "")[:12] for value in ids]
    assert stamps == sorted(stamps) and len(set(ids)) == 50


def test_short_ids_are_the_shortest_unique_prefix_but_never_under_eight():
    pi_ids = ["01a23412-1227-75bd-9f18-c07e8cf5d902", "01a23412-7a49-75bd-ab6a-a438c7743e50",
              "01a23412-7a51-7000-8000-000000000000", "9f00c2aa-0000-4000-8000-000000000000"]
    shown = short_ids(pi_ids)
    assert shown == {pi_ids[0]: "01a23412-1", pi_ids[1]: "01a23412-7a4",
                     pi_ids[2]: "01a23412-7a5", pi_ids[3]: "9f00c2aa"}
    assert len(set(shown.values())) == 4 and min(map(len, shown.values())) == SHORTEST
    assert short_ids(["abc", "abcdef"]) == {"abc": "abc", "abcdef": "abcdef"}
