"""BIRD SQL: answer questions about SQLite databases with SQL, scored by execution accuracy
(AgentGym's ``sqlgym`` task). Embedded generated databases by default; BIRD's own release
through ``data_path=``."""
