"""The contract's route table is the one the OpenAPI document, fast lane and dispatcher use."""

import json
import unittest
from types import SimpleNamespace

from waitress.task import ThreadedTaskDispatcher

from retrieval.http.app import OPERATIONS
from retrieval.http.contract import ADMITTED, FAST, ROUTES, WORKER
from retrieval.http.inflight import InFlightGate
from retrieval.serve.server import AdmittingDispatcher
from retrieval.wsgi import create_app
from tests.support import call, quiet_settings

TIER = "inprocess"

# Paths no route has (Waitress hands the server these, already percent-decoded).
UNKNOWN_PATHS = ("/nope", "/retrieve/", "/./retrieve", "/retrieve ", "/passages", "", "retrieve")
OTHER_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH")


def routing_error(reply):
    """Return the reply's error code if routing refused it (not_found, method_not_allowed)."""
    if reply.headers.get("Content-Type") != "application/json" or not reply.body:
        return None
    code = reply.json().get("error", {}).get("code")
    return code if code in ("not_found", "method_not_allowed") else None


def concrete(route) -> str:
    """Return a path the route matches (a template's parameter filled in)."""
    return route.prefix + "0" * 64 if route.prefix is not None else route.path


class _WorkerQueue(ThreadedTaskDispatcher):
    """Stands in for Waitress's worker queue behind AdmittingDispatcher: records, runs nothing."""

    def add_task(self, task):
        self.queued.append(task)


class _ProbeDispatcher(AdmittingDispatcher, _WorkerQueue):
    """AdmittingDispatcher whose worker queue and fast lane only record what they are given."""

    def __init__(self):
        super().__init__(InFlightGate(10_000))
        self._fast_lane.shutdown()
        self.queued, self.fast = [], []
        self._fast_lane = SimpleNamespace(add_task=self.fast.append)

    def lane_of(self, path: str, method: str) -> str:
        request = SimpleNamespace(path=path, command=method, error=None)
        task = SimpleNamespace(requests=[request])
        self.add_task(task)
        if task in self.fast:
            return FAST
        self.assertQueued(task)
        return ADMITTED if getattr(request, "retrieval_admitted", None) is True else WORKER

    def assertQueued(self, task):
        if task not in self.queued:
            raise AssertionError("the task went nowhere")


class RouteTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = create_app(settings=quiet_settings())
        cls.addClassCleanup(cls.app.close)

    def test_openapi_documents_the_contract_routes_and_methods(self):
        document = json.loads(call(self.app, "GET", "/openapi.json").body)
        expected = {route.path: {method.lower() for method in route.methods if method != "HEAD"}
                    for route in ROUTES if route.documented}
        self.assertEqual({path: set(operations) for path, operations in document["paths"].items()},
                         expected)

    def test_fast_lane_and_admission_take_the_contract_lanes(self):
        dispatcher = _ProbeDispatcher()
        for route in ROUTES:
            for method in route.methods:
                with self.subTest(route=route.path, method=method):
                    self.assertEqual(dispatcher.lane_of(concrete(route), method), route.lane)
        for path in UNKNOWN_PATHS:
            with self.subTest(path=path):
                self.assertEqual(dispatcher.lane_of(path, "GET"), FAST)
        # The gate admits only what the route answers; anything else is the app's 405.
        admitted = [route for route in ROUTES if route.lane == ADMITTED]
        self.assertTrue(admitted)
        for route in admitted:
            for method in set(OTHER_METHODS) - set(route.methods):
                with self.subTest(route=route.path, method=method):
                    self.assertEqual(dispatcher.lane_of(route.path, method), WORKER)

    def test_a_raw_spelling_takes_the_lane_of_the_route_the_app_dispatches_it_to(self):
        # Waitress keeps `//retrieve` in its request object and hands the app `/retrieve`; one
        # slash more must not take a retrieval past the in-flight gate.
        dispatcher = _ProbeDispatcher()
        for route in ROUTES:
            for spelling in ("/" + concrete(route), "///" + concrete(route)):
                with self.subTest(spelling=spelling):
                    self.assertEqual(dispatcher.lane_of(spelling, route.methods[0]), route.lane)
                    reply = call(self.app, route.methods[0], spelling, b"{}")
                    self.assertIsNone(routing_error(reply))

    def test_dispatcher_has_one_operation_per_json_route(self):
        paths = [operation.route.path for operation in OPERATIONS]
        self.assertEqual(len(paths), len(set(paths)))
        self.assertEqual(set(paths), {route.path for route in ROUTES if route.page is None})

    def test_the_app_answers_each_route_with_its_methods_only(self):
        for route in ROUTES:
            path = concrete(route)
            for method in OTHER_METHODS:
                with self.subTest(route=route.path, method=method):
                    reply = call(self.app, method, path, b"{}")
                    if method in route.methods:
                        self.assertIsNone(routing_error(reply))
                    else:
                        self.assertEqual(reply.code, 405)
                        self.assertEqual(reply.headers["Allow"], ", ".join(route.methods))
        for path in UNKNOWN_PATHS:
            with self.subTest(path=path):
                reply = call(self.app, "GET", path, validate=path.startswith("/"))
                self.assertEqual(routing_error(reply), "not_found")


if __name__ == "__main__":
    unittest.main()
