"""The local web viewer: ``mnemosyne serve``'s REST API (``api``), its HTTP server
(``server``), the safe Markdown renderer (``render``) and the page (``static/``)."""
