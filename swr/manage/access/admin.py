"""The users and API keys part of the checked engine view (:class:`swr.manage.access.guard.GuardedEngine`):
admins only, every change audited. A mixin: it relies on the view's ``_require_admin``, ``_log``,
``settings`` and ``_engine``."""
from __future__ import annotations

from swr.core.errors import BadRequest, NotFound
from swr.manage.access.session_token import SessionTokens
from swr.manage.access.users import UserStore, missing_message, new_password, unknown_kbs


class UserAdmin:
    """Users and API keys through the checked view (admins only)."""

    def _users(self, what: str) -> UserStore:
        """The users file, for admins only (:class:`Forbidden`, audited as refused, for anyone else)."""
        self._require_admin(what)
        return UserStore.for_settings(self.settings)

    def users(self) -> list[dict]:
        """Every user: name, role, grants, dates (never a hash)."""
        return self._users("manage users").list()

    def add_user(self, name: str, role: str, password: str | None = None, *, read=(),
                 edit=()) -> tuple[dict, str | None]:
        """Create a user; without ``password`` one is generated and returned (to be shown once, never
        stored in clear, logged or audited), else the second item is None."""
        store = self._users("manage users")
        self._require_kbs_exist([*read, *edit])
        generated = None if password else new_password()
        user = store.add(name, role, password or generated, read=read, edit=edit)
        self._log("user_add", object=user["name"], detail=user["role"])
        return user, generated

    def reset_password(self, name: str, password: str | None = None) -> tuple[dict, str | None]:
        """A new password for ``name``: the one typed, or a generated one (returned, shown once)."""
        store = self._users("manage users")
        generated = None if password else new_password()
        user = store.reset(name, password or generated)
        SessionTokens.for_settings(self.settings).revoke_user(name)  # signed in elsewhere: signed out
        self._log("user_reset", object=name, detail="password")
        return user, generated

    def set_role(self, name: str, role: str) -> dict:
        """A new role for ``name`` (the password stays)."""
        store = self._users("manage users")
        self._keep_an_admin(store, name, "change the role of", role)
        user = store.reset(name, role=role)
        self._log("user_role", object=name, detail=role)
        return user

    def delete_user(self, name: str) -> dict:
        """Remove ``name`` (its sessions are signed out on their next run)."""
        store = self._users("manage users")
        self._keep_an_admin(store, name, "remove")
        user = store.delete(name)
        SessionTokens.for_settings(self.settings).revoke_user(name)
        self._log("user_delete", object=name)
        return user

    def grant(self, name: str, kb: str, access: str) -> dict:
        """``access`` ``read``, ``edit`` or ``none`` (revoke) for ``name`` on ``kb`` (``*``: every one)."""
        users = self._users("manage users")
        if access != "none":  # a grant that is there may always be taken away
            self._require_kbs_exist([kb])
        user = users.grant(name, kb, access)
        self._log("user_grant", kb=(kb or "").strip(), object=name, detail=access)
        return user

    def api_keys(self) -> list[dict]:
        """Every API key (never a secret or hash): admins only."""
        self._require_admin("manage API keys")
        from swr.manage.access.keys import KeyStore

        return KeyStore.for_settings(self.settings).list()

    def create_api_key(self, user: str, **kw) -> tuple[dict, str]:
        """A new key of ``user`` (``kbs``, ``read_only``, ``name``, limits): its record and the secret,
        to be shown once (never stored in clear, logged or audited)."""
        self._require_admin("manage API keys")
        from swr.manage.access.keys import KeyStore

        key, secret = KeyStore.for_settings(self.settings).create(user, UserStore.for_settings(self.settings), **kw)
        self._log("key_create", object=key["id"], detail=key["user"])
        return key, secret

    def revoke_api_key(self, key_id: str) -> dict:
        self._require_admin("manage API keys")
        from swr.manage.access.keys import KeyStore

        key = KeyStore.for_settings(self.settings).revoke(key_id)
        self._log("key_revoke", object=key_id, detail=key["user"])
        return key

    def _require_kbs_exist(self, kbs) -> None:
        """:class:`BadRequest` naming the knowledge bases in ``kbs`` that do not exist (``*`` is every one)."""
        missing = unknown_kbs(kbs, self._engine.store.kbs())
        if missing:
            raise BadRequest(missing_message(missing))

    def _keep_an_admin(self, store: UserStore, name: str, what: str, role: str | None = None) -> None:
        """The app never leaves the users file without an admin (the CLI on the server still can)."""
        users = {u["name"]: u for u in store.list()}
        if name not in users:
            raise NotFound(f"No user named {name!r}.")
        admins = [n for n, u in users.items() if u["role"] == "admin"]
        if admins == [name] and role != "admin":
            raise BadRequest(f"{name} is the only admin: make another user an admin before you {what} them.")
