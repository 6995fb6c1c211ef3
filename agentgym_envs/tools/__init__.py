"""The shared layer of the tool-use families (Weather, Movie, Academia, Sheet, TODOList).

* :class:`Tool` / :class:`Toolkit` -- a tool is a name, a description, a JSON schema of its
  arguments and a pure function over the family's backend; arguments are validated
  (:func:`validate_arguments`) and a bad call is feedback that names the problem. The other
  families declare their function-calling tools as :class:`Tool` s too, and the
  function-calling wrapper checks native tool calls with the same validator.
* :func:`parse_tool_action` -- AgentGym's ``Action: <tool> with Action Input: {...}`` grammar
  and JSON tool calls.
* :func:`answers_match` -- answer comparison robust to number formatting, case and units.
* :class:`ProgressTracker` -- AgentBoard's progress rate over a task's :class:`Subgoal` s.
* :class:`ToolEnv` -- the env base class that plays AgentGym's tool protocol.
"""

from agentgym_envs.tools.answers import answers_match, canonical, parse_number
from agentgym_envs.tools.env import (
    PlanExpert,
    PlanStep,
    ToolEnv,
    ToolTask,
    check_valid_actions_tool,
    finish_tool,
    user_context_tools,
)
from agentgym_envs.tools.grammar import FORMAT_ERROR, ParsedAction, parse_tool_action
from agentgym_envs.tools.progress import ProgressTracker, Record, Subgoal
from agentgym_envs.tools.tool import (
    SCHEMA_KEYWORDS,
    Tool,
    ToolError,
    Toolkit,
    action_text,
    param,
    schema,
    validate_arguments,
)

__all__ = [
    "FORMAT_ERROR",
    "SCHEMA_KEYWORDS",
    "ParsedAction",
    "PlanExpert",
    "PlanStep",
    "ProgressTracker",
    "Record",
    "Subgoal",
    "Tool",
    "ToolEnv",
    "ToolError",
    "ToolTask",
    "Toolkit",
    "action_text",
    "answers_match",
    "canonical",
    "check_valid_actions_tool",
    "finish_tool",
    "param",
    "parse_number",
    "parse_tool_action",
    "schema",
    "user_context_tools",
    "validate_arguments",
]
