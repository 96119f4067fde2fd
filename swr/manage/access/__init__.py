"""Who may do what: users and roles (:mod:`.users`), the checked engine view every caller holds
(:mod:`.guard`), the audit trail (:mod:`.audit`), per-user limits (:mod:`.limits`) and the bind rule
(:mod:`.bind`). No Streamlit here."""
from swr.manage.access.audit import AuditLog
from swr.manage.access.bind import is_loopback, open_mode_refusal
from swr.manage.access.guard import GuardedEngine
from swr.manage.access.limits import Limits, SignInThrottle
from swr.manage.access.users import ROLES, Actor, UserStore

__all__ = ["ROLES", "Actor", "AuditLog", "GuardedEngine", "Limits", "SignInThrottle", "UserStore", "is_loopback",
           "open_mode_refusal"]
