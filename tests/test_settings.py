"""Unit: settings are declared once; unknown names and wrong types stop start-up."""

import os
import unittest

from retrieval.settings import (
    SETTINGS,
    Settings,
    SettingsError,
    describe_settings,
    effective_config,
    load_settings,
)
from tests.support import temporary_directory

TIER = "unit"


class SettingsTest(unittest.TestCase):
    def test_defaults(self):
        self.assertEqual(load_settings(environ={}), Settings())
        self.assertEqual(Settings().max_body_bytes, 4096)
        self.assertEqual(Settings().server_max_request_body_size, 65536)

    def test_environment_then_overrides(self):
        settings = load_settings(environ={"RETRIEVAL_THREADS": "8", "RETRIEVAL_PORT": "9000",
                                          "OTHER": "ignored"},
                                 overrides={"port": 9100, "host": None})
        self.assertEqual((settings.threads, settings.port, settings.host), (8, 9100, "127.0.0.1"))

    def test_unknown_names_and_wrong_types_are_refused(self):
        cases = [
            ({"RETRIEVAL_TREADS": "8"}, {}, "unknown setting RETRIEVAL_TREADS"),
            ({"RETRIEVAL_THREADS": "eight"}, {}, "setting threads"),
            ({}, {"bogus": 1}, "unknown setting bogus"),
            ({}, {"threads": True}, "setting threads"),
            ({}, {"threads": 0}, "setting threads"),
            ({}, {"max_reads_limit": 1}, "below the default allowance"),
            ({}, {"max_body_bytes": 70000}, "server_max_request_body_size"),
            ({"RETRIEVAL_ACCESS_LOG": "yes"}, {}, "setting access_log"),
            ({}, {"allow_unauthenticated": 1}, "setting allow_unauthenticated"),
            ({}, {"max_in_flight": 0}, "setting max_in_flight"),
            ({}, {"deadline_ms": 0}, "setting deadline_ms"),
        ]
        for environ, overrides, fragment in cases:
            with self.subTest(fragment):
                with self.assertRaisesRegex(SettingsError, fragment):
                    load_settings(environ=environ, overrides=overrides)

    def test_booleans_from_text(self):
        for text, value in (("true", True), ("TRUE", True), ("1", True), ("false", False),
                            ("0", False)):
            with self.subTest(text=text):
                settings = load_settings(environ={"RETRIEVAL_ALLOW_UNAUTHENTICATED": text})
                self.assertIs(settings.allow_unauthenticated, value)

    def write(self, text):
        path = os.path.join(temporary_directory(self), "retrieval.toml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path

    def test_toml_file_then_environment_then_overrides(self):
        path = self.write('threads = 2\nport = 9000\nhost = "127.0.0.2"\ndrain_delay_s = 1\n')
        settings = load_settings(environ={"RETRIEVAL_PORT": "9001"}, config_file=path,
                                 overrides={"threads": 3})
        self.assertEqual((settings.threads, settings.port, settings.host, settings.drain_delay_s),
                         (3, 9001, "127.0.0.2", 1.0))

    def test_toml_unknown_keys_and_wrong_types_name_the_key(self):
        cases = [('thread = 2\n', "unknown setting thread"),
                 ('threads = "2"\n', "setting threads"),
                 ('threads = true\n', "setting threads"),
                 ('[server]\nthreads = 2\n', "unknown setting server"),
                 ('threads = \n', "not TOML")]
        for text, fragment in cases:
            with self.subTest(text=text):
                with self.assertRaisesRegex(SettingsError, fragment):
                    load_settings(environ={}, config_file=self.write(text))

    def test_printed_config_reads_back_to_the_same_settings(self):
        settings = load_settings(environ={}, overrides={"snapshot": 'dir "quoted" \\ x',
                                                        "threads": 2, "drain_delay_s": 0.5})
        path = self.write(effective_config(settings))
        self.assertEqual(load_settings(environ={}, config_file=path), settings)

    def test_every_setting_is_documented(self):
        text = describe_settings()
        for setting in SETTINGS:
            self.assertTrue(setting.metadata["help"])
            self.assertIn("RETRIEVAL_" + setting.name.upper(), text)


if __name__ == "__main__":
    unittest.main()
