"""Who may do what: users and roles (:mod:`.users`), the checked engine view every caller holds
(:mod:`.guard`), the audit trail (:mod:`.audit`), per-user limits (:mod:`.limits`) and the bind rule
(:mod:`.bind`). No Streamlit here."""
from .audit import AuditLog
from .bind import is_loopback, open_mode_refusal
from .guard import GuardedEngine
from .limits import Limits, SignInThrottle
from .users import ROLES, Actor, UserStore

__all__ = ["ROLES", "Actor", "AuditLog", "GuardedEngine", "Limits", "SignInThrottle", "UserStore", "is_loopback",
           "open_mode_refusal"]
