"""The referee server: Flask routes over a :class:`~assistant.referee.session.Session`, served by
waitress (``assistant serve``). ``app`` builds the application, ``api`` the JSON API and the
live stream, ``pages`` the tablet pages, ``openapi`` the API's description."""
