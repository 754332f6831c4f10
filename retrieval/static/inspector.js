// Retrieval Inspector
