// gpbandit list (stub).
