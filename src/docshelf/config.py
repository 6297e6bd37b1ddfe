"""Settings, read in one place: defaults < config file (TOML) < environment (DOCSHELF_*) < arguments.

The config file is the first of: the ``--config`` path, ``$DOCSHELF_CONFIG``,
``./docshelf.toml``, ``<user config dir>/docshelf/config.toml``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from .errors import ConfigError


def default_index_dir() -> Path:
    return Path(platformdirs.user_data_dir("docshelf", appauthor=False)) / "index"


class CollectionRule(BaseModel):
    """Files whose relative path matches any gitignore-style glob in ``include`` belong to ``name``."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key is an error, not ignored

    name: str
    include: list[str]
    doc_type: str | None = None


class DocTypeRule(BaseModel):
    """Files matching ``include`` get ``doc_type`` unless their frontmatter sets ``type``."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key is an error, not ignored

    doc_type: str
    include: list[str]


class SearchPreset(BaseModel):
    """A scoped search exposed as its own MCP tool (e.g. ``search_glossary``)."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key is an error, not ignored

    name: str
    description: str = ""
    collections: list[str] = []
    doc_types: list[str] = []
    path_prefix: str | None = None
    tags: list[str] = []


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DOCSHELF_", env_nested_delimiter="__", extra="ignore")

    index_dir: Path = Field(default_factory=default_index_dir)
    # Where the index lives: unset = embedded LanceDB in index_dir; "postgresql://…",
    # "qdrant://host:6333" or "qdrant+https://host" for a shared server backend.
    store: str | None = None
    store_read_url: str | None = None  # PostgreSQL: a read replica for searches
    store_api_key: str | None = None  # Qdrant: the API key (or DOCSHELF_STORE_API_KEY)
    roots: list[Path] = []
    model: str = "all-MiniLM-L6-v2"
    embed_batch_size: int = 8
    embed_threads: int = 0
    # Where the packaged model runs: "cpu", "cuda" (needs the gpu extra and a GPU; an error
    # otherwise) or "auto" (CUDA when onnxruntime offers it, else the CPU). embedders/devices.py.
    device: Literal["cpu", "cuda", "auto"] = "auto"
    # Packaged model on the CPU: embed queries with int8 matrix products (~25–40 % less CPU per
    # query; vectors at cosine >= 0.9996 to the float model's, which still embeds documents).
    # Off by default: benchmarks/README.md, "Query latency, sixth pass", has its quality.
    query_int8: bool = False
    # Hosted or remote models (``ollama:MODEL``, ``openai:MODEL``, ``gemini:MODEL``); see embedders/hosted.py.
    embed_url: str | None = None  # default: the provider's public URL (Ollama: http://127.0.0.1:11434)
    embed_api_key: SecretStr | None = None  # else the provider's variable (OPENAI_API_KEY, GEMINI_API_KEY)
    embed_dimensions: int | None = None  # output dimension to ask for (Gemini, OpenAI v3, Ollama)
    embed_max_tokens: int | None = None  # chunk limit for a remote model (default 512)
    embed_concurrency: int = 4  # batches in flight at once
    embed_timeout: float = 60.0  # seconds per request
    embed_retries: int = 5  # retries on 429/5xx/timeouts, with backoff honouring Retry-After
    # Asymmetric models, local ones too (e5: "query: " / "passage: "; bge: its query instruction).
    query_prefix: str = ""
    document_prefix: str = ""
    query_task: str | None = None  # Gemini task types; default RETRIEVAL_QUERY / RETRIEVAL_DOCUMENT
    document_task: str | None = None
    chunk_tokens: int | None = None  # default: the model's limit
    chunk_overlap: int = 32
    max_file_bytes: int = 20_000_000
    exclude: list[str] = []
    default_collection: str = "default"
    collections: list[CollectionRule] = []
    # A vault's definitions folder is a glossary unless a note's frontmatter says otherwise.
    doc_types: list[DocTypeRule] = Field(default_factory=lambda: [
        DocTypeRule(doc_type="glossary", include=["3_Resources/definitions/**"])])
    default_doc_type: str = "doc"
    search_doc_types: list[str] | None = None  # default scope; None = every type
    search_mode: str = "hybrid"
    max_chunks_per_doc: int = 3
    # Optional cross-encoder reranker (sentence-transformers extra); none by default.
    reranker: str | None = None
    rerank_budget_ms: float = 400.0
    rerank_top: int = 20
    # Each preset is an MCP tool ``search_<name>``; the default is the glossary (see DocTypeRule above).
    presets: list[SearchPreset] = Field(default_factory=lambda: [SearchPreset(
        name="glossary",
        description="Look up a term's definition: searches only glossary and definition notes "
                    "(doc type 'glossary' or 'definition'; by default every note under 3_Resources/definitions/).",
        doc_types=["glossary", "definition"],
    )])
    log_file: Path | None = None
    # Seconds between full re-checks of the roots while watching (serve, watch); 0: never.
    reconcile_interval: float = 300.0

    @field_validator("search_mode")
    @classmethod
    def _mode(cls, v: str) -> str:
        if v not in ("hybrid", "semantic", "keyword", "fuzzy"):
            raise ValueError("search_mode must be hybrid, semantic, keyword or fuzzy")
        return v

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = _config_path()
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    def own_paths(self) -> list[Path]:
        """What docshelf itself writes (the index folder, the log folder or file and its
        rotations): discovery and the watcher never enter these, even inside a root."""
        from .logs import BACKUPS, default_log_file

        paths = [Path(self.index_dir).expanduser().resolve()]
        if self.log_file is None:
            paths.append(default_log_file().parent.resolve())
        else:
            log_file = Path(self.log_file).expanduser().resolve()
            paths += [log_file] + [log_file.with_name(f"{log_file.name}.{i}") for i in range(1, BACKUPS + 1)]
        return paths

    def collection_for(self, rel_path: str) -> tuple[str, str | None]:
        """The collection (and its doc_type, if the rule sets one) a relative path belongs to."""
        for rule in self.collections:
            if any(_glob_match(rel_path, g) for g in rule.include):
                return rule.name, rule.doc_type
        return self.default_collection, None

    def doc_type_for(self, rel_path: str, frontmatter_type: Any, collection_type: str | None) -> str:
        if isinstance(frontmatter_type, str) and frontmatter_type.strip():
            return frontmatter_type.strip().lower()
        for rule in self.doc_types:
            if any(_glob_match(rel_path, g) for g in rule.include):
                return rule.doc_type
        return collection_type or self.default_doc_type


_CONFIG_OVERRIDE: Path | None = None


def _config_path() -> Path | None:
    if _CONFIG_OVERRIDE is not None:
        return _CONFIG_OVERRIDE
    env = os.environ.get("DOCSHELF_CONFIG")
    if env:
        return Path(env)
    local = Path("docshelf.toml")
    if local.is_file():
        return local
    user = Path(platformdirs.user_config_dir("docshelf", appauthor=False)) / "config.toml"
    return user if user.is_file() else None


def load_settings(config: Path | None = None, **overrides: Any) -> Settings:
    """Build Settings from the config file, the environment and explicit overrides."""
    global _CONFIG_OVERRIDE
    if config is not None and not Path(config).is_file():
        raise ConfigError(f"config file {config} not found")
    _CONFIG_OVERRIDE = Path(config) if config else None
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        path = _config_path()
        if path is not None:
            _check_config_file(path)
        return Settings(**given)
    except ConfigError:
        raise
    except ValidationError as exc:
        raise ConfigError(_validation_problem(exc, path, given)) from exc
    except Exception as exc:  # noqa: BLE001 - anything else reading the file
        raise ConfigError(f"invalid configuration: {exc}") from exc
    finally:
        _CONFIG_OVERRIDE = None


def _check_config_file(path: Path) -> None:
    """The config file parses as TOML and names only known settings: a misspelt key
    (``chunk_tokns``) would otherwise be ignored, and the user would believe it applied."""
    import difflib
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if _CONFIG_OVERRIDE is None and os.environ.get("DOCSHELF_CONFIG"):
            # A misspelt $DOCSHELF_CONFIG would otherwise run silently on the defaults.
            raise ConfigError(f"DOCSHELF_CONFIG names {path}, which does not exist (unset it, or set "
                              f"it to {os.devnull} for no config file)") from None
        return  # ./docshelf.toml or the user's file, removed between the look and the read
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not UTF-8 text; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
    known = list(Settings.model_fields)
    for key in data:
        if key not in Settings.model_fields:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.7)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"config file {path}: unknown setting '{key}'{hint}")


def _validation_problem(exc: ValidationError, path: Path | None, given: dict[str, Any]) -> str:
    """One line per refused setting: which one, why, the value, and where it came from."""
    problems = []
    for error in exc.errors():
        loc = [str(part) for part in error.get("loc", ())]
        field = loc[0] if loc else "?"
        env = f"DOCSHELF_{field.upper()}"
        if field in given:
            source = "the command line"
        elif env in os.environ:
            source = f"environment variable {env}"
        else:
            source = f"config file {path}" if path is not None else "the configuration"
        reason = str(error.get("msg", "")).removeprefix("Value error, ")
        if error.get("type") == "extra_forbidden":
            reason = "unknown setting"
        problems.append(f"{'.'.join(loc) or field} in {source}: {reason} (got {error.get('input')!r})")
    return "invalid configuration: " + "; ".join(problems)


def _glob_match(rel_path: str, pattern: str) -> bool:
    """Gitignore-style glob (``docshelf.globs``): the one dialect for every path rule."""
    from .globs import matches

    return matches(rel_path, (pattern,))
