"""Unit: the keys file, bearer authentication, the `keys add` command and per-key rate limits."""

import argparse
import contextlib
import hashlib
import hmac
import io
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import unittest
from unittest import mock

from retrieval.cli.keys import register_keys_command
from retrieval.http.auth import (
    ApiKey,
    KeysFileError,
    KeyStore,
    RateLimiter,
    add_key,
    retry_after_seconds,
)
from retrieval.http.errors import InvalidCredentials, Unauthenticated
from retrieval.testing import subprocess_env
from tests.support import ROOT, WAIT_S

TIER = "server"

EXPIRY_2027 = 1798761600.0  # 2027-01-01T00:00:00Z
NOW = 1767225600.0  # 2026-01-01T00:00:00Z


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _entry(key_id="ci-bot", secret="s1", **extra):
    return {"id": key_id, "secret_sha256": _digest(secret), "collections": ["default"], **extra}


class KeysTestCase(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.dir = temp.name
        self.path = os.path.join(self.dir, "keys.json")

    def write_document(self, document) -> None:
        with open(self.path, "w", encoding="utf-8") as handle:
            json.dump(document, handle)

    def read_bytes(self) -> bytes:
        with open(self.path, "rb") as handle:
            return handle.read()


class AddKeyTest(KeysTestCase):
    def test_creates_file_0600_with_only_the_hash(self):
        secret = add_key(self.path, "ci-bot", ["default", "runbooks"])
        self.assertTrue(secret.startswith("rk_"))
        self.assertEqual(stat.S_IMODE(os.stat(self.path).st_mode), 0o600)
        data = self.read_bytes()
        self.assertNotIn(secret.encode(), data)
        self.assertNotIn(secret[3:].encode(), data)
        self.assertTrue(data.endswith(b"}\n"))
        document = json.loads(data)
        self.assertEqual(document["format"], "retrieval-keys")
        self.assertEqual(document["keys"], [{
            "id": "ci-bot", "secret_sha256": _digest(secret),
            "collections": ["default", "runbooks"], "rate_limit": None, "expires": None}])
        self.assertEqual([name for name in os.listdir(self.dir)], ["keys.json"])  # no temp left

    def test_replacing_a_readable_file_leaves_it_0600(self):
        self.write_document({"format": "retrieval-keys", "keys": []})
        os.chmod(self.path, 0o644)
        add_key(self.path, "ci-bot", ["default"])
        self.assertEqual(stat.S_IMODE(os.stat(self.path).st_mode), 0o600)

    def test_two_adds_keep_order_and_get_different_secrets(self):
        first = add_key(self.path, "zeta", ["default"])
        second = add_key(self.path, "alpha", ["runbooks"], per_second=2.5,
                         expires="2027-01-01T00:00:00Z")
        self.assertNotEqual(first, second)
        store = KeyStore.load(self.path)
        self.assertEqual([key.key_id for key in store.keys], ["zeta", "alpha"])
        self.assertEqual(store.keys[1].burst, 3)  # ceil(2.5)
        self.assertEqual(store.keys[1].expires_at, EXPIRY_2027)

    def test_duplicate_id_refused_and_file_unchanged(self):
        add_key(self.path, "ci-bot", ["default"])
        before = self.read_bytes()
        with self.assertRaisesRegex(KeysFileError, "ci-bot.*already exists") as caught:
            add_key(self.path, "ci-bot", ["runbooks"])
        self.assertIn(self.path, str(caught.exception))
        self.assertEqual(self.read_bytes(), before)

    def test_invalid_values_refused_before_writing(self):
        cases = [
            ({"collections": ["Bad"]}, "keys[0].collections[0]: 'Bad' is not a collection name"),
            ({"collections": []}, "keys[0].collections"),
            ({"collections": "default"}, "not a string"),
            ({"per_second": float("nan")}, "keys[0].rate_limit.per_second"),
            ({"per_second": 0}, "keys[0].rate_limit.per_second"),
            ({"per_second": 1, "burst": 0}, "keys[0].rate_limit.burst"),
            ({"burst": 5}, "a burst needs a rate limit"),
            ({"expires": "2027-01-01"}, "keys[0].expires"),
        ]
        for overrides, message in cases:
            with self.subTest(overrides=overrides):
                arguments = {"collections": ["default"], **overrides}
                with self.assertRaises(KeysFileError) as caught:
                    add_key(self.path, "ci-bot", **arguments)
                self.assertIn(message, str(caught.exception))
                self.assertFalse(os.path.exists(self.path))

    def test_rate_below_one_gets_burst_one(self):
        add_key(self.path, "slow", ["default"], per_second=0.2)
        key = KeyStore.load(self.path).keys[0]
        self.assertEqual((key.per_second, key.burst), (0.2, 1))


class AuthenticateTest(KeysTestCase):
    def setUp(self):
        super().setUp()
        self.secret = add_key(self.path, "ci-bot", ["default", "runbooks"],
                              per_second=5, burst=10, expires="2027-01-01T00:00:00Z")
        self.store = KeyStore.load(self.path)

    def test_returned_secret_authenticates(self):
        key = self.store.authenticate(f"Bearer {self.secret}", NOW)
        self.assertEqual(key.key_id, "ci-bot")
        self.assertEqual(key.collections, frozenset({"default", "runbooks"}))
        self.assertTrue(key.may_read("runbooks"))
        self.assertFalse(key.may_read("other"))
        self.assertEqual((key.per_second, key.burst, key.expires_at), (5.0, 10, EXPIRY_2027))

    def test_scheme_is_case_insensitive(self):
        for scheme in ("bearer", "BEARER", "BeArEr"):
            with self.subTest(scheme=scheme):
                key = self.store.authenticate(f"{scheme} {self.secret}", NOW)
                self.assertEqual(key.key_id, "ci-bot")

    def test_malformed_headers_are_unauthenticated(self):
        for header in (None, "", "Basic x", "Bearer", "Bearer ", "Bearer a b",
                       f"Basic {self.secret}", f"Bearer{self.secret}", f"Bearer {self.secret} x",
                       "Bearer t\u00f6ken", 'Bearer "quoted"'):
            with self.subTest(header=header):
                with self.assertRaises(Unauthenticated):
                    self.store.authenticate(header, NOW)

    def test_unknown_and_expired_are_indistinguishable(self):
        with self.assertRaises(InvalidCredentials) as unknown:
            self.store.authenticate("Bearer rk_not-a-key", NOW)
        with self.assertRaises(InvalidCredentials) as expired:
            self.store.authenticate(f"Bearer {self.secret}", EXPIRY_2027)
        self.assertIs(type(unknown.exception), type(expired.exception))
        self.assertEqual(str(unknown.exception), str(expired.exception))
        self.assertEqual(unknown.exception.code, expired.exception.code)
        self.assertEqual(unknown.exception.headers(), expired.exception.headers())
        self.assertEqual(unknown.exception.to_body(), expired.exception.to_body())
        self.store.authenticate(f"Bearer {self.secret}", EXPIRY_2027 - 1)  # live until the instant

    def test_compares_against_every_key(self):
        others = [add_key(self.path, f"k{index}", ["default"]) for index in range(3)]
        store = KeyStore.load(self.path)
        with mock.patch("retrieval.http.auth.hmac.compare_digest",
                        wraps=hmac.compare_digest) as spy:
            self.assertEqual(store.authenticate(f"Bearer {self.secret}", NOW).key_id, "ci-bot")
        self.assertEqual(spy.call_count, 4)  # the match was the first key; no early stop
        self.assertEqual(store.authenticate(f"bearer {others[2]}", NOW).key_id, "k2")

    def test_store_is_immutable(self):
        self.assertIsInstance(self.store.keys, tuple)
        with self.assertRaises(AttributeError):
            self.store.keys[0].collections = frozenset({"other"})
        built = KeyStore((ApiKey("x", _digest("s"), frozenset({"default"})),))
        self.assertEqual(built.authenticate("Bearer s", NOW).key_id, "x")


class LoadTest(KeysTestCase):
    def assertRefused(self, document, message):
        self.write_document(document)
        with self.assertRaises(KeysFileError) as caught:
            KeyStore.load(self.path)
        self.assertIn(f"{self.path}: ", str(caught.exception))
        self.assertIn(message, str(caught.exception))

    def test_accepts_the_documented_example(self):
        self.write_document({"format": "retrieval-keys", "keys": [
            _entry(collections=["default", "runbooks"], rate_limit={"per_second": 5, "burst": 10},
                   expires="2027-01-01T00:00:00Z"),
            _entry("other", "s2", rate_limit=None, expires=None)]})
        first, second = KeyStore.load(self.path).keys
        self.assertEqual((first.per_second, first.burst, first.expires_at), (5.0, 10, EXPIRY_2027))
        self.assertIsInstance(first.per_second, float)
        self.assertEqual((second.per_second, second.burst, second.expires_at), (None, None, None))
        self.assertFalse(second.expired(1e12))

    def test_refusals_name_the_entry(self):
        cases = [
            ([_entry(note="x")], "keys[0]: unknown field 'note'"),
            ([_entry("-bad")], "keys[0].id: '-bad'"),
            ([_entry("a" * 65)], "keys[0].id"),
            ([_entry(), _entry("ci-bot", "s2")], "keys[1].id: 'ci-bot' is also keys[0]"),
            ([_entry(), _entry("other", "s1")], "keys[1].secret_sha256: same hash as keys[0]"),
            ([_entry(secret_sha256=_digest("s").upper())], "keys[0].secret_sha256"),
            ([{"id": "x", "collections": ["default"]}], "keys[0]: missing field 'secret_sha256'"),
            ([_entry(collections=["default", "Bad"])],
             "keys[0].collections[1]: 'Bad' is not a collection name"),
            ([_entry(collections=[])], "keys[0].collections"),
            ([_entry(collections=["default", "default"])], "keys[0].collections[1]"),
            ([_entry(rate_limit={"per_second": 1, "burst": True})], "keys[0].rate_limit.burst"),
            ([_entry(rate_limit={"per_second": 1, "burst": 1.0})], "keys[0].rate_limit.burst"),
            ([_entry(rate_limit={"per_second": True, "burst": 1})],
             "keys[0].rate_limit.per_second"),
            ([_entry(rate_limit={"per_second": -1, "burst": 1})], "keys[0].rate_limit.per_second"),
            ([_entry(rate_limit={"per_second": 1})], "keys[0].rate_limit"),
            ([_entry(rate_limit={"per_second": 1, "burst": 1, "x": 1})], "keys[0].rate_limit"),
            ([_entry(expires="2027-01-01T00:00:00+00:00")], "keys[0].expires"),
            ([_entry(expires="2027-02-30T00:00:00Z")], "keys[0].expires"),
            ([_entry(expires=1798761600)], "keys[0].expires"),
            (["ci-bot"], "keys[0]: must be an object"),
        ]
        for keys, message in cases:
            with self.subTest(message=message):
                self.assertRefused({"format": "retrieval-keys", "keys": keys}, message)

    def test_refuses_wrong_document_shape(self):
        self.assertRefused({"format": "retrieval-snapshot", "keys": []}, "format")
        self.assertRefused({"keys": []}, "format")
        self.assertRefused({"format": "retrieval-keys"}, "keys: must be a list")
        self.assertRefused({"format": "retrieval-keys", "keys": [], "extra": 1}, "unknown field")
        self.assertRefused([], "must be a JSON object")

    def test_refuses_non_strict_json_and_missing_file(self):
        for text in (b'{"format": "retrieval-keys", "keys": [], "keys": []}',
                     b'{"format": "retrieval-keys", "keys": [{"id": NaN}]}', b"{"):
            with self.subTest(text=text):
                with open(self.path, "wb") as handle:
                    handle.write(text)
                with self.assertRaisesRegex(KeysFileError, "not strict JSON"):
                    KeyStore.load(self.path)
        missing = os.path.join(self.dir, "absent.json")
        with self.assertRaises(KeysFileError) as caught:
            KeyStore.load(missing)
        self.assertIn(missing, str(caught.exception))


class CommandTest(KeysTestCase):
    def run_command(self, *argv):
        parser = argparse.ArgumentParser()
        register_keys_command(parser.add_subparsers(dest="command", required=True))
        args = parser.parse_args(list(argv))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = args.run(args)
        return code, out.getvalue()

    def test_prints_secret_alone_on_last_line(self):
        code, out = self.run_command("keys", "add", "ci-bot", "--collections", "default,runbooks",
                                     "--keys-file", self.path, "--rate-limit", "5", "--burst",
                                     "10", "--expires", "2027-01-01T00:00:00Z")
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2)
        self.assertIn("ci-bot", lines[0])
        self.assertIn(self.path, lines[0])
        secret = lines[-1]
        self.assertRegex(secret, r"\Ark_[A-Za-z0-9_-]{43}\Z")
        key = KeyStore.load(self.path).authenticate(f"Bearer {secret}", NOW)
        self.assertEqual((key.key_id, key.collections, key.per_second, key.burst),
                         ("ci-bot", frozenset({"default", "runbooks"}), 5.0, 10))

    def test_errors_raise_keys_file_error(self):
        self.run_command("keys", "add", "ci-bot", "--collections", "default",
                         "--keys-file", self.path)
        with self.assertRaisesRegex(KeysFileError, "already exists"):
            self.run_command("keys", "add", "ci-bot", "--collections", "default",
                             "--keys-file", self.path)
        with self.assertRaisesRegex(KeysFileError, r"collections\[1\]"):
            self.run_command("keys", "add", "x", "--collections", "default,",
                             "--keys-file", self.path)


def _limited(key_id="a", per_second=2.0, burst=3):
    return ApiKey(key_id, _digest(key_id), frozenset({"default"}), per_second, burst)


class RateLimiterTest(unittest.TestCase):
    def test_burst_then_refusal_with_the_wait(self):
        limiter, key = RateLimiter(), _limited()
        self.assertEqual([limiter.take(key, 100.0) for _ in range(3)], [0.0, 0.0, 0.0])
        self.assertAlmostEqual(limiter.take(key, 100.0), 0.5)
        self.assertAlmostEqual(limiter.take(key, 100.0), 0.5)  # a refusal consumes nothing
        self.assertAlmostEqual(limiter.take(key, 100.25), 0.25)

    def test_refills_at_the_rate_up_to_burst(self):
        limiter, key = RateLimiter(), _limited()
        for _ in range(3):
            limiter.take(key, 0.0)
        self.assertEqual(limiter.take(key, 0.5), 0.0)
        self.assertGreater(limiter.take(key, 0.5), 0.0)
        results = [limiter.take(key, 1000.0) for _ in range(4)]
        self.assertEqual(results[:3], [0.0, 0.0, 0.0])
        self.assertAlmostEqual(results[3], 0.5)

    def test_keys_are_independent(self):
        limiter, first, second = RateLimiter(), _limited("a"), _limited("b", burst=1)
        for _ in range(3):
            limiter.take(first, 0.0)
        self.assertGreater(limiter.take(first, 0.0), 0.0)
        self.assertEqual(limiter.take(second, 0.0), 0.0)
        self.assertAlmostEqual(limiter.take(second, 0.0), 0.5)

    def test_unlimited_key_is_never_refused(self):
        limiter, key = RateLimiter(), _limited(per_second=None, burst=None)
        self.assertEqual({limiter.take(key, 0.0) for _ in range(1000)}, {0.0})

    def test_concurrent_takes_never_exceed_burst(self):
        limiter, key = RateLimiter(), _limited(per_second=1.0, burst=2000)
        allowed = []
        # Switch threads as often as possible, so that an unlocked read-modify-write would race.
        self.addCleanup(sys.setswitchinterval, sys.getswitchinterval())
        sys.setswitchinterval(1e-6)

        def worker():
            allowed.append(sum(limiter.take(key, 5.0) == 0.0 for _ in range(1000)))

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(sum(allowed), 2000)

    def test_retry_after_seconds(self):
        self.assertEqual(retry_after_seconds(0.01), 1)
        self.assertEqual(retry_after_seconds(1.2), 2)
        self.assertEqual(retry_after_seconds(1.0), 1)
        self.assertEqual(retry_after_seconds(0.0), 1)


if __name__ == "__main__":
    unittest.main()


class ConcurrentAddTest(KeysTestCase):
    def test_concurrent_adds_lose_no_key(self):
        path = os.path.join(self.dir, "keys.json")
        add_key(path, "first", ["default"])
        ids = [f"key-{n}" for n in range(12)]
        start = threading.Barrier(len(ids))

        def add(key_id):
            start.wait()
            add_key(path, key_id, ["default"])

        threads = [threading.Thread(target=add, args=(key_id,)) for key_id in ids]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(sorted(key.key_id for key in KeyStore.load(path).keys),
                         sorted(["first", *ids]))


class PermissionTest(KeysTestCase):
    def keys_file(self, mode):
        path = os.path.join(self.dir, "keys.json")
        add_key(path, "first", ["default"])
        os.chmod(path, mode)
        return path

    def test_group_or_world_writable_file_is_refused(self):
        for mode in (0o620, 0o602, 0o666):
            with self.subTest(mode=oct(mode)):
                path = self.keys_file(mode)
                with self.assertRaisesRegex(KeysFileError, "writable by group or others"):
                    KeyStore.load(path)
                with self.assertRaisesRegex(KeysFileError, "writable by group or others"):
                    add_key(path, "second", ["default"])
                os.remove(path)

    def test_world_writable_directory_needs_the_sticky_bit(self):
        path = self.keys_file(0o600)
        self.addCleanup(os.chmod, self.dir, 0o700)
        os.chmod(self.dir, 0o777)
        with self.assertRaisesRegex(KeysFileError, "world-writable directory"):
            KeyStore.load(path)
        with self.assertRaisesRegex(KeysFileError, "world-writable directory"):
            add_key(path, "second", ["default"])
        os.chmod(self.dir, 0o1777)
        self.assertEqual(len(KeyStore.load(path).keys), 1)
        os.chmod(path, 0o640)  # group-readable is fine
        self.assertEqual(len(KeyStore.load(path).keys), 1)

    def test_group_writable_directory_is_refused(self):
        path = self.keys_file(0o600)
        self.addCleanup(os.chmod, self.dir, 0o700)
        os.chmod(self.dir, 0o770)
        for attempt in (lambda: KeyStore.load(path), lambda: add_key(path, "second", ["default"])):
            with self.assertRaisesRegex(KeysFileError, "in a group-writable directory"):
                attempt()

    def test_a_link_into_a_world_writable_directory_is_refused(self):
        shared = os.path.join(self.dir, "shared")
        os.mkdir(shared, 0o700)
        add_key(os.path.join(shared, "keys.json"), "first", ["default"])
        os.chmod(shared, 0o777)
        link = os.path.join(self.dir, "link.json")  # its own directory is 0700
        os.symlink(os.path.join(shared, "keys.json"), link)
        with self.assertRaisesRegex(KeysFileError, "world-writable directory without the sticky"):
            KeyStore.load(link)
        with self.assertRaisesRegex(KeysFileError, "world-writable directory without the sticky"):
            add_key(link, "second", ["default"])

    def test_a_file_or_directory_owned_by_another_user_is_refused(self):
        if os.geteuid() != 0:
            self.skipTest("giving a file to another user needs root")
        path = self.keys_file(0o600)
        os.chown(path, 4242, -1)
        with self.assertRaisesRegex(KeysFileError, r"keys file is owned by another user \(uid"):
            KeyStore.load(path)
        os.chown(path, 0, -1)
        os.chown(self.dir, 4242, -1)
        with self.assertRaisesRegex(KeysFileError, "in a directory owned by another user"):
            KeyStore.load(path)

    def test_keys_add_writes_through_a_link(self):
        real = os.path.join(self.dir, "real")
        os.mkdir(real, 0o700)
        target = os.path.join(real, "keys.json")
        add_key(target, "first", ["default"])
        link = os.path.join(self.dir, "keys.json")
        os.symlink(target, link)
        add_key(link, "second", ["default"])
        self.assertTrue(os.path.islink(link))
        self.assertEqual([key.key_id for key in KeyStore.load(target).keys], ["first", "second"])
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o600)

    def test_refused_in_one_line_with_exit_2(self):
        path = self.keys_file(0o666)
        for argv in (["keys", "add", "second", "--collections", "default", "--keys-file", path],
                     ["serve", "--port", "0", "--keys-file", path]):
            with self.subTest(command=argv[0]):
                done = subprocess.run([sys.executable, "-m", "retrieval", *argv],
                                      capture_output=True, text=True, env=subprocess_env(),
                                      cwd=ROOT, timeout=WAIT_S, stdin=subprocess.DEVNULL)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                self.assertIn("writable by group or others", done.stderr)
