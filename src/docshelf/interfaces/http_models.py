"""The JSON the HTTP API returns (its OpenAPI schema is the contract for builders and scripts).

Hit fields are those of the MCP ``search_docs`` tool, plus ``root``, ``url`` and the
``highlights`` spans; a pushed record's ``path`` is its ``source`` (a path or a URL).
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, Field


class ErrorBody(BaseModel):
    type: str = Field(description="The docshelf error class, e.g. InvalidQuery, NotFound, Unauthorized.")
    message: str = Field(description="What went wrong and what to do next.")
    field: Optional[str] = Field(None, description="The request field at fault, when one is.")


class ErrorOut(BaseModel):
    error: ErrorBody


class HitOut(BaseModel):
    rank: int = Field(description="1 = best match.")
    score: float = Field(description="Relevance in [0, 1]; higher is better.")
    path: str = Field(description="Document path relative to its root, or a pushed record's source (path or URL).")
    root: str = Field(description="The indexed folder, or 'push:' for pushed records.")
    url: Optional[str] = Field(None, description="Where a reader can open the source, when it is on the web.")
    title: str
    heading_path: list[str]
    citation: str = Field(description="Ready-to-quote location: path › headings (page, lines).")
    page: Optional[int] = None
    page_label: Optional[str] = Field(None, description=(
        "The page number printed on that PDF page when it differs from its position ('iv', 'A-1')."))
    start_line: Optional[int] = None
    end_line: Optional[int] = None
    start_col: Optional[int] = Field(None, description=(
        "Inside one very long line only: the passage's first character in it (1-based); "
        "/documents/{path}?lines=LINE:START_COL-END_COL reads exactly it."))
    end_col: Optional[int] = None
    collection: str
    doc_type: str
    tags: list[str] = []
    date: Optional[str] = None
    chunk_id: str
    doc_id: str = Field(description="GET /documents/{doc_id} reads the whole document.")
    text: str
    text_truncated: bool = False
    note: str = Field("", description=(
        "Set when the file's current version failed to index: the text is from the last version that did "
        "(since when and why). Empty otherwise."))
    highlights: list[list[int]] = Field(default_factory=list, description="[start, end) character spans of query terms in text.")


class SearchOut(BaseModel):
    query: str
    mode: str
    hits: list[HitOut]
    # models.SearchResult.confidence, read from the top hit's score and what the docs lack (search/calibrate.py)
    confidence: Literal["high", "medium", "low", "none"] = Field("none", description=(
        "How sure the search is that the documents answer the query: 'high' (answer from the hits), "
        "'medium' (related passages: answer only what they say), 'low' or 'none' (the documentation does "
        "not seem to cover it). A question naming something no indexed document mentions is never 'high'."))
    note: str = ""
    took_ms: float = 0.0
    empty_reason: str = ""  # with no hits, why (models.SearchResult.empty_reason)


class DocumentOut(BaseModel):
    path: str
    root: str
    title: str
    collection: str
    doc_type: str
    doc_id: str
    text: str
    start_line: Optional[int] = None
    end_line: Optional[int] = None
    pages: list[int] = []
    truncated: bool
    total_chunks: int
    chunks_returned: int
    note: str = ""  # set when a line range is the indexed chunks, not exactly the lines asked for


class DocumentInfoOut(BaseModel):
    path: str
    root: str
    title: str
    collection: str
    doc_type: str
    status: str
    error: str = ""
    chunks: int
    format: str
    tags: list[str] = []
    date: Optional[str] = None
    page_count: Optional[int] = None
    doc_id: str


class DocumentsPageOut(BaseModel):
    documents: list[DocumentInfoOut]
    total: int = Field(description="Documents matching the filters, over all pages.")
    next_cursor: Optional[str] = Field(None, description="Pass as cursor for the next page; null on the last page.")


class CollectionOut(BaseModel):
    name: str
    documents: int
    chunks: int
    doc_types: list[str]


class CollectionsOut(BaseModel):
    collections: list[CollectionOut]


class FailedOut(BaseModel):
    path: str
    reason: str


class StatusOut(BaseModel):
    state: str = Field(description="'opening', 'indexing', 'ready' or 'failed'.")
    role: str = Field(description="'writer' (this process writes the index) or 'reader'.")
    model: str
    model_state: str
    dimensions: int
    index_dir: str
    roots: list[str]
    documents: int
    chunks: int
    pushed_documents: int = Field(description="Documents made of pushed records (root 'push:').")
    failed: list[FailedOut]
    last_indexed_at: Optional[str] = None
    last_error: str = ""
    ingest_enabled: bool


class HealthOut(BaseModel):
    status: str = Field(description="'ok', 'starting' or 'failed'.")
    version: str
    model: Optional[str] = None
    index_state: str
    documents: Optional[int] = None
    chunks: Optional[int] = None


class UpsertOut(BaseModel):
    upserted: int
    embedded: int = Field(description="Records docshelf embedded itself (no embedding sent, or content changed).")
    sources: list[str]
    cut: list[str] = Field(default_factory=list, description=(
        "Ids of records docshelf embedded whose content is longer than the model reads (its first max_tokens "
        "tokens are embedded; the rest is found by keyword search only): split them into smaller records."))


class LookupRecordOut(BaseModel):
    id: str
    source: str
    sha256: str = Field(description="sha256 of the record's content (UTF-8), hex.")


class LookupOut(BaseModel):
    records: list[LookupRecordOut]
    missing: list[str] = Field(description="Asked-for ids or sources that are not stored.")


class DeleteOut(BaseModel):
    deleted: int = Field(description="Records removed.")
    sources: list[str] = Field(description="Sources (documents) touched.")
