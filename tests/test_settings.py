"""Unit: settings are declared once; unknown names and wrong types stop start-up."""

import unittest

from retrieval.settings import SETTINGS, Settings, SettingsError, describe_settings, load_settings


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
        ]
        for environ, overrides, fragment in cases:
            with self.subTest(fragment):
                with self.assertRaisesRegex(SettingsError, fragment):
                    load_settings(environ=environ, overrides=overrides)

    def test_every_setting_is_documented(self):
        text = describe_settings()
        for setting in SETTINGS:
            self.assertTrue(setting.metadata["help"])
            self.assertIn("RETRIEVAL_" + setting.name.upper(), text)


if __name__ == "__main__":
    unittest.main()
