"""The SQLite workspace and its exports."""

from agentprop.store._workspace import DB_NAME, SCHEMA_VERSION, Workspace, WorkspaceError

__all__ = ["DB_NAME", "SCHEMA_VERSION", "Workspace", "WorkspaceError"]
