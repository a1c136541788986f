"""JSON Schema tasks (ConCodeEval and beyond): generate schemas, show them as JSON, YAML, XML, pydantic or English,
parse a model's sample from JSON, YAML or XML, validate it with every error's path and keyword, and mutate valid
samples into minimally invalid ones.
"""
