"""Watch and play Saboteur in the browser (``saboteur serve``, ``saboteur replay --html``).

* :mod:`.view`: a :class:`~saboteur_env.engine.state.Game` and a viewer (a seat or
  ``"spectator"``) as a JSON-ready dict, built only from what that viewer may know, with the
  legal moves of the seat to act.
* :mod:`.server`: the Flask app of ``saboteur serve`` (needs the ``serve`` extra).
* :mod:`.replay_html`: a self-contained replay page of a game record.
* ``static/``: the page's HTML, CSS and JavaScript (package data, no build step).
"""
