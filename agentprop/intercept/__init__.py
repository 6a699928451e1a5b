"""intercept"""
