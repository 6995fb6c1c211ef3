"""SearchQA: AgentGym's search-agent family (AgentGym-RL's Deep Search).

AgentGym's ``agentenv-searchqa`` server is reproduced in its texts, its reply parsing (first
``<search>``/``<answer>`` block; the last ``<answer>`` is graded) and its exact-match reward.
Its data (2018 Wikipedia passages, seven QA test sets) is not reachable offline, so the default
corpus and questions are generated (:mod:`.world`); the user's files play AgentGym's items.
"""
