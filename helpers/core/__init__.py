"""The bottom layer, numpy only: the one formula (``formula``), one record per row (``layernorm``), input
checks (``validation``), reading numbers (``data``) and the pencil checks of a printed table
(``published_table``). Nothing here displays; the records' text and HTML views are registered by
``helpers.display`` above (see ``views``)."""
