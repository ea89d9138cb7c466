"""The parts of ``scripts/table_report.py``: the scripted humans (:mod:`.humans`), how they
reach a move by touch alone (:mod:`.touch`), and what the report counts (:mod:`.counting`)."""
