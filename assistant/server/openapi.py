"""The OpenAPI 3.1 document of the referee server's JSON API (served at ``/api/openapi.json``)."""

from __future__ import annotations

from typing import Any

_ERROR = {"description": "Refused: one sentence says why.",
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
_TOKEN = [{"bearer": []}, {"query": []}, {}]


def _op(summary: str, ok: dict[str, Any], errors: tuple[int, ...] = (403,), **extra) -> dict[str, Any]:
    responses = {**ok, **{str(code): _ERROR for code in errors}}
    return {"summary": summary, "security": _TOKEN, "responses": responses, **extra}


def _json(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema or {"type": "object"}}}}


def document() -> dict[str, Any]:
    """The OpenAPI document as a dict (JSON-serialisable)."""
    event = {"$ref": "#/components/schemas/Event"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tabletop assistant referee API", "version": "1",
                 "description": "One refereed game. No token: the public table view; a seat's token: that "
                                "player's private view; the referee token: corrections, undo, the record. "
                                "What a role is told depends only on what it may know; observations (faces, "
                                "cards, clues) are never taken from a player's token; every wrong observation "
                                "is 'observation_conflict: That does not match the table.'. Bodies: JSON, at "
                                "most 64 KiB and 32 levels deep."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"},
                                "query": {"type": "apiKey", "in": "query", "name": "token"}},
            "schemas": {
                "Error": {"type": "object", "required": ["error", "message"],
                          "properties": {"error": {"type": "string", "description": "stable snake_case code"},
                                         "message": {"type": "string", "description": "one sentence"}}},
                "Event": {"type": "object", "required": ["actor", "type"],
                          "description": "One event of the game's record vocabulary (records.md and the game's rules file).",
                          "properties": {"actor": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]},
                                         "type": {"type": "string"}},
                          "additionalProperties": True},
                "Snapshot": {"type": "object",
                             "required": ["game", "revision", "role", "seat", "result", "view", "board_svg", "recent",
                                          "events", "can_undo", "notices"],
                             "properties": {"game": {"type": "string"}, "revision": {"type": "integer"},
                                            "role": {"enum": ["public", "player", "referee"]},
                                            "seat": {"type": ["integer", "null"]}, "result": {"type": "string"},
                                            "view": {"type": "object"}, "board_svg": {"type": "string"},
                                            "recent": {"type": "array", "items": {"type": "object"}},
                                            "events": {"type": "integer"}, "can_undo": {"type": "boolean"},
                                            "notices": {"type": "array", "items": {"type": "object"}},
                                            "devices": {"type": "object", "description": "device name -> status"}}},
            },
        },
        "paths": {
            "/api/snapshot": {"get": _op("What the caller's page shows now", {"200": _json("the snapshot", {"$ref": "#/components/schemas/Snapshot"})})},
            "/api/legal": {"get": _op("The events the caller may post now", {"200": _json("legal events (at most 300)")})},
            "/api/events": {"post": _op("Apply one event (a move or a correction)", {"201": _json("applied: index and ok")},
                                        (400, 403, 409, 413),
                                        requestBody={"required": True, "content": {"application/json": {"schema": event}}})},
            "/api/setup": {"post": _op("Change the set-up before the first event (Discovery Island: each player "
                                       "chooses the opponent's landing hex)", {"200": _json("done")}, (400, 403, 409, 413),
                                       requestBody={"required": True, "content": {"application/json": {
                                           "schema": {"type": "object"}}}})},
            "/api/reread": {"post": _op("Ask the camera to look again at some cells (referee)",
                                        {"200": _json("cells queued")}, (400, 403, 413),
                                        requestBody={"required": True, "content": {"application/json": {
                                            "schema": {"type": "object", "required": ["cells"],
                                                       "properties": {"cells": {"type": "array"}}}}}})},
            "/api/check": {"post": _op("Check the whole table against the game at the camera's next still "
                                       "frame (referee); the answer comes as referee-only notices",
                                       {"202": _json("check queued")}, (403, 409))},
            "/api/undo": {"post": _op("Take back the last event within the current player's turn",
                                      {"200": _json("events left")}, (403, 409))},
            "/api/notices/{notice_id}/dismiss": {"post": _op(
                "Remove a warning or question (referee)", {"200": _json("done")}, (403, 404),
                parameters=[{"name": "notice_id", "in": "path", "required": True, "schema": {"type": "integer"}}])},
            "/api/record": {"get": _op("Download the record (referee)", {"200": {"description": "tabletop-record/1 JSON Lines",
                                                                                "content": {"application/x-ndjson": {}}}})},
            "/api/join/{seat}.svg": {"get": _op("QR code of a seat's private page (referee)",
                                                {"200": {"description": "SVG", "content": {"image/svg+xml": {}}}}, (403, 404),
                                                parameters=[{"name": "seat", "in": "path", "required": True,
                                                             "schema": {"type": "integer", "minimum": 0}}])},
            "/api/camera.jpg": {"get": _op("The rectified board with the detector's overlays",
                                           {"200": {"description": "JPEG", "content": {"image/jpeg": {}}}}, (404,))},
            "/api/stream": {"get": _op("Live updates: a snapshot on connect and after each change; a keep-alive every 5 s. "
                                       "503 with Retry-After when every live view is taken",
                                       {"200": {"description": "Server-Sent Events (event: snapshot)",
                                                "content": {"text/event-stream": {}}}}, (403, 503))},
            "/api/lobby": {"get": _op("Whether a game is played, waits for its players' secret choices, or none "
                                      "exists yet (a player also gets its own choices and the form's options)",
                                      {"200": _json("state: none, choosing or playing")})},
            "/api/lobby/stream": {"get": _op("The lobby, live: its state on connect and after each change; 'reload' when "
                                             "the token no longer grants what it did; a keep-alive every 5 s. 503 with "
                                             "Retry-After when every live view is taken",
                                             {"200": {"description": "Server-Sent Events (event: lobby, reload)",
                                                      "content": {"text/event-stream": {}}}}, (403, 503))},
            "/api/lobby/map.svg": {"get": _op("The island of the Discovery Island game waiting for its players' choices "
                                              "(the landable hexes marked); 409 when none waits",
                                              {"200": {"description": "SVG", "content": {"image/svg+xml": {}}}}, (409,))},
            "/api/new/abandon": {"post": _op("Abandon the Discovery Island game waiting for its players' choices "
                                             "(referee token)", {"200": _json("state: none")}, (403, 409))},
            "/api/new/options": {"get": _op("What the new-game form offers", {"200": _json("games and their choices")})},
            "/api/new": {"post": _op("Start a new game from the referee's form; 'replace': true replaces a game in "
                                     "progress (its record is kept)", {"201": _json("state: playing or choosing")},
                                     (400, 403, 409, 413), requestBody={"required": True, "content": {
                                         "application/json": {"schema": {"type": "object", "required": ["game"]}}}})},
            "/api/choices": {"post": _op("Discovery Island: a player's own equipment and the opponent's landing hex "
                                         "(that player's token)", {"200": _json("state: choosing or playing")},
                                         (400, 403, 409, 413), requestBody={"required": True, "content": {
                                             "application/json": {"schema": {"type": "object",
                                                                             "required": ["equipment", "landing"]}}}})},
            "/api/table/read": {"post": _op("serve --game G --source S without --setup: read the opening table "
                                            "again at the next still moment (referee)",
                                            {"202": _json("queued: true")}, (403, 409))},
            "/api/table/correct": {"post": _op("Correct one slot of the table the camera read: cell (the cell's key, "
                                               "or both cells of a side), kind and one of the labels allowed there (referee)",
                                               {"200": _json("the reading with its flags and corrections")},
                                               (400, 403, 409, 413), requestBody={"required": True, "content": {
                                                   "application/json": {"schema": {"type": "object",
                                                                                   "required": ["cell", "kind", "label"]}}}})},
            "/api/table/start": {"post": _op("Start the game on the table the camera read, as corrected, with "
                                             "the new-game form's players and choices; Discovery Island: the first call "
                                             "waits for the players' secret choices, a call once both chose starts it "
                                             "(referee)",
                                             {"201": _json("state: playing, or choosing")}, (400, 403, 409, 413),
                                             requestBody={"required": True, "content": {"application/json": {
                                                 "schema": {"type": "object", "required": ["game"]}}}})},
            "/api/openapi.json": {"get": {"summary": "This document", "responses": {"200": _json("OpenAPI 3.1")}}},
        },
    }
