"""The typed results the MCP tools return (their output schemas are part of the agent contract)."""

from typing import Optional

from pydantic import BaseModel, Field


class SearchHitOut(BaseModel):
    rank: int = Field(description="1 = best match.")
    score: float = Field(description=(
        "Estimated relevance in [0, 1], comparable across queries: about 0.7+ answers the query, under 0.3 "
        "probably does not. Never increases down the list."))
    path: str = Field(description="Document path relative to its root: cite this, pass it to get_document.")
    title: str
    heading_path: list[str] = Field(description="Headings the passage sits under, outermost first.")
    citation: str = Field(description="Ready-to-quote location: path › headings (page, lines).")
    page: Optional[int] = Field(None, description="PDF page (1-based), when known.")
    page_label: Optional[str] = Field(None, description=(
        "The page number printed on that PDF page when it differs from its position ('iv', 'A-1'): quote this; "
        "get_document(page=...) takes the label or the 1-based page."))
    start_line: Optional[int] = Field(None, description="First source line (1-based), when known.")
    end_line: Optional[int] = Field(None, description="Last source line (inclusive), when known.")
    start_col: Optional[int] = Field(None, description=(
        "Only for a passage inside one very long line (minified JSON, a one-line text): its first character "
        "in that line (1-based); get_document(lines='LINE:START_COL-END_COL') reads exactly it."))
    end_col: Optional[int] = Field(None, description="Its last character in that line (inclusive), with start_col.")
    collection: str
    doc_type: str
    tags: list[str] = []
    date: Optional[str] = Field(None, description="Document date (YYYY-MM-DD) from its metadata, if any.")
    chunk_id: str = Field(description="Pass to read_neighbors for the surrounding text.")
    doc_id: str = Field(description="Stable id of the document; get_document accepts it instead of path.")
    uri: str = Field(description="MCP resource URI of the whole document.")
    text: str = Field(description="The matching passage (may be shortened to fit the response budget).")
    text_truncated: bool = Field(False, description="True when text was shortened to fit the response budget.")
    note: str = Field("", description=(
        "Set when the file's current version failed to index: the text is from the last version that did, "
        "and the note says since when and why. Empty otherwise."))


class SearchOut(BaseModel):
    query: str
    mode: str = Field(description="The mode that actually ran (keyword while the model is still loading).")
    hits: list[SearchHitOut]
    confidence: str = Field("none", description=(
        "How sure the search is that the documents answer the query: 'high' (answer from the hits), "
        "'medium' (related passages: answer only what they say), 'low' or 'none' (say the documentation "
        "does not seem to cover it rather than guessing). A question naming something no indexed document "
        "mentions is never 'high'."))
    note: str = Field("", description="Why results may be partial or shortened; empty when complete.")
    took_ms: float = 0.0
    empty_reason: str = Field("", description=(
        "With no hits, why: 'no_match' (no passage matched: rephrase, or mode='fuzzy' for names and typos), "
        "'below_min_score' (lower min_score), 'empty_scope' (the filters leave no document: loosen them), "
        "'empty_index' (nothing is indexed yet: index_status says whether a first index is running), "
        "'unknown_collection' (the note lists the collections). Empty when there are hits."))


class CollectionOut(BaseModel):
    name: str
    documents: int
    chunks: int
    doc_types: list[str]


class CollectionsOut(BaseModel):
    collections: list[CollectionOut]
    total_documents: int
    total_chunks: int
    failed_documents: int
    model: str
    model_state: str = Field(description="'loaded', 'loading' (keyword search only until then) or 'failed: …'.")
    index_state: str = Field(description="'opening', 'indexing' (start-up reconcile running), 'ready' or 'failed'.")


class DocumentOut(BaseModel):
    path: str
    title: str
    collection: str
    doc_type: str
    doc_id: str
    uri: str
    text: str = Field(description="The document text (or the requested range), reassembled in reading order.")
    start_line: Optional[int] = None
    end_line: Optional[int] = None
    pages: list[int] = []
    truncated: bool = Field(description="True when text was cut at max_chars; ask for a range to read further.")
    total_chunks: int
    chunks_returned: int
    note: str = Field("", description=(
        "Set when the requested lines could not be served exactly (the file changed since it was "
        "indexed): says what the text is instead; cite start_line/end_line, not the lines you asked for."))


class NeighborChunkOut(BaseModel):
    chunk_id: str
    chunk_index: int
    is_anchor: bool = Field(description="True for the chunk you asked about.")
    heading_path: list[str]
    page: Optional[int] = None
    start_line: Optional[int] = None
    end_line: Optional[int] = None
    start_col: Optional[int] = Field(None, description=(
        "Inside one very long line only: the chunk's first character in it (as search hits cite it)."))
    end_col: Optional[int] = None
    text: str


class NeighborsOut(BaseModel):
    path: str
    title: str
    chunks: list[NeighborChunkOut]


class DocumentInfoOut(BaseModel):
    path: str
    title: str
    collection: str
    doc_type: str
    status: str = Field(description="'indexed' or 'failed' (see error).")
    error: str = ""
    chunks: int
    format: str
    tags: list[str] = []
    date: Optional[str] = None
    page_count: Optional[int] = None
    doc_id: str
    uri: str


class DocumentsPageOut(BaseModel):
    documents: list[DocumentInfoOut]
    total: int = Field(description="Documents matching the filters, on every page together.")
    next_cursor: Optional[str] = Field(None, description="Pass as cursor for the next page; null on the last page.")


class FailedFileOut(BaseModel):
    path: str
    reason: str


class StatusOut(BaseModel):
    state: str = Field(description="'opening', 'indexing', 'ready' or 'failed'.")
    role: str = Field(description="'writer' (this server indexes and watches) or 'reader' (another process does).")
    watcher: str = Field(description="'native', 'polling', 'off (…)' or 'starting'.")
    model: str
    model_state: str
    index_dir: str
    roots: list[str]
    missing_roots: list[str] = []
    documents: int = Field(description="Indexed documents.")
    chunks: int
    pending: int = Field(description="Files waiting to be (re)indexed by this server.")
    failed: list[FailedFileOut] = Field(description="Files that could not be indexed, with the reason.")
    skipped: list[FailedFileOut] = Field(default_factory=list, description=(
        "Files left out on purpose (over the size cap, unsupported format, symlink out of the root, unreadable "
        "name or folder), with the reason."))
    last_update: Optional[str] = Field(None, description="When the index last changed (ISO 8601, UTC).")
    last_error: str = ""
    started_at: str


class LinkOut(BaseModel):
    target: str = Field(description="The link as written in the note ([[target]]).")
    path: Optional[str] = Field(None, description="The note it resolves to; null when no such note is indexed.")


class NoteOut(BaseModel):
    path: str
    title: str
    doc_type: str
    tags: list[str] = []
    date: Optional[str] = None
    aliases: list[str] = []
    metadata: dict = Field(default_factory=dict, description="The note's frontmatter.")
    text: str
    truncated: bool
    uri: str
    links: list[LinkOut] = Field(default_factory=list, description="Outgoing [[wiki links]], resolved.")
    backlinks: list[str] = Field(default_factory=list, description="Paths of the notes that link to this one.")
