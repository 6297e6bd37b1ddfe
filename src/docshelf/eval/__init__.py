"""Retrieval evaluation on BEIR-format folders: ``docshelf eval DATASET_DIR``."""

from .metrics import evaluate_run, mrr_at_k, ndcg_at_k, recall_at_k

__all__ = ["evaluate_run", "mrr_at_k", "ndcg_at_k", "recall_at_k"]
