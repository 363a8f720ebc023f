"""The hidden check of implement-from-docstring: parse_duration keeps its docstring."""

import unittest

from durations import format_duration, parse_duration


class ParseDurationTest(unittest.TestCase):
    def test_the_docstring_examples(self):
        self.assertEqual(parse_duration("45s"), 45)
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("2h5m10s"), 7510)
        self.assertEqual(parse_duration("90m"), 5400)

    def test_each_unit_alone_and_skipped(self):
        self.assertEqual(parse_duration("3h"), 10800)
        self.assertEqual(parse_duration("1h15s"), 3615)
        self.assertEqual(parse_duration("0s"), 0)

    def test_bad_durations_raise_value_error(self):
        for text in ("", "5m1h", "10", "1d", "1h 30m", "1h1h", "h", "1.5h"):
            with self.subTest(text=text):
                with self.assertRaises(ValueError):
                    parse_duration(text)

    def test_the_reverse_of_format_duration(self):
        for seconds in (1, 59, 60, 3599, 3600, 5400, 7510, 86399):
            with self.subTest(seconds=seconds):
                self.assertEqual(parse_duration(format_duration(seconds)), seconds)


if __name__ == "__main__":
    unittest.main()
