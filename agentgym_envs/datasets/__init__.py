"""AgentTraj: load and validate trajectories, link them to env tasks, convert, replay, check overlap.

Reading Parquet and Hugging Face Hub ids needs the extra: ``pip install "agentgym-envs[datasets]"``
(JSON and JSONL need nothing more).
"""

from agentgym_envs.datasets.agenttraj import (
    Problem,
    Trajectory,
    TrajectorySet,
    Turn,
    load_agenttraj,
    save_agenttraj,
    validate_record,
)
from agentgym_envs.datasets.export import (
    EXPORT_FORMATS,
    Export,
    export_trajectories,
    filter_trajectories,
    loss_mask,
    split_invalid,
    to_chat_messages,
    to_dpo_pairs,
    to_sft,
    to_sft_text,
)
from agentgym_envs.datasets.items import (
    ItemRef,
    ItemResolver,
    UnlinkedItemError,
    canonical_item_id,
    parse_item_id,
    resolve_item,
)
from agentgym_envs.datasets.replay import Replayer, ReplayReport, ReplaySummary, replay, replay_all
from agentgym_envs.datasets.stats import FamilyStats, OverlapReport, dataset_stats, overlap

__all__ = [
    "EXPORT_FORMATS",
    "Export",
    "FamilyStats",
    "ItemRef",
    "ItemResolver",
    "OverlapReport",
    "Problem",
    "ReplayReport",
    "ReplaySummary",
    "Replayer",
    "Trajectory",
    "TrajectorySet",
    "Turn",
    "UnlinkedItemError",
    "canonical_item_id",
    "dataset_stats",
    "export_trajectories",
    "filter_trajectories",
    "load_agenttraj",
    "loss_mask",
    "overlap",
    "parse_item_id",
    "replay",
    "replay_all",
    "resolve_item",
    "save_agenttraj",
    "split_invalid",
    "to_chat_messages",
    "to_dpo_pairs",
    "to_sft",
    "to_sft_text",
    "validate_record",
]
