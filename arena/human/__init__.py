"""What every human seat shares, whatever its screen: the input form built from the engine's request (`form.py`),
with the legal options, the word and character caps and the checks. The terminal seat (`arena/players/human.py`) and
the browser seat (`arena/web/table.py`) both use it. It may import the engine only."""
